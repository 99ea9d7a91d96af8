import { ACTION, type ActionRecord } from '../../domain/action.js';
import { AppError } from '../../domain/errors.js';
import type { TargetRecord } from '../../domain/target.js';
import type { Request } from '../../http/types.js';
import type { Reads, Stored, Tenant } from '../../store/port.js';
import { loadActorByKeyOr404, loadActorOr404 } from '../kit/actor-store.js';
import { pathId, pathText } from '../kit/request.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';

/** The target (`:targetId`, a controller id) and its action (`:actionId`) of the path (else 404, reference §3.1). */
export async function targetActionOr404(
  store: Pick<Reads, 'get' | 'lookup'>, tenant: Tenant, req: Request,
): Promise<{ target: Stored<TargetRecord>; action: Stored<ActionRecord> }> {
  const controllerId = pathText(req, 'targetId');
  const target = await loadActorByKeyOr404(store, tenant, BY_CONTROLLER_ID, controllerId);
  const id = pathId(req, 'actionId', 'Action');
  const action = await loadActorOr404(store, tenant, ACTION, id, {
    belongs: (a) => a.targetId === target.id,
    stray: () => new AppError('NOT_FOUND', `Action with given identifier {${id}} is not assigned to target {${controllerId}}.`),
  });
  return { target, action };
}
