import { ACTION, type ActionRecord } from '../../domain/action.js';
import { AppError, notFound } from '../../domain/errors.js';
import type { TargetRecord } from '../../domain/target.js';
import type { Request } from '../../http/types.js';
import type { Store, Stored, Tenant } from '../../store/port.js';
import { pathId, pathText } from '../kit/request.js';
import { loadTarget } from '../targets/target-store.js';

/** The action of the path (`:actionId`), or 404. */
export async function actionOr404(store: Store, tenant: Tenant, req: Request): Promise<Stored<ActionRecord>> {
  const id = pathId(req, 'actionId', 'Action');
  const found = await store.get<ActionRecord>(tenant, ACTION, id);
  if (found === undefined) throw notFound('Action', id);
  return found;
}

/** The target (`:targetId`, a controller id) and its action (`:actionId`) of the path (else 404, reference §3.1). */
export async function targetActionOr404(
  store: Store, tenant: Tenant, req: Request,
): Promise<{ target: Stored<TargetRecord>; action: Stored<ActionRecord> }> {
  const controllerId = pathText(req, 'targetId');
  const target = await loadTarget(store, tenant, controllerId);
  const action = await actionOr404(store, tenant, req);
  if (action.value.targetId !== target.id) {
    throw new AppError('NOT_FOUND', `Action with given identifier {${action.id}} is not assigned to target {${controllerId}}.`);
  }
  return { target, action };
}
