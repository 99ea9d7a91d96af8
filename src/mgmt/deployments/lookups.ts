import { ACTION, type ActionRecord } from '../../domain/action.js';
import { AppError } from '../../domain/errors.js';
import type { Request } from '../../http/types.js';
import type { Reads, Stored, Tenant } from '../../store/port.js';
import { loadActorByKeyOr404, loadActorOr404 } from '../kit/actor-store.js';
import type { ActorScope } from '../kit/actor-routes.js';
import { pathId, pathText } from '../kit/request.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';

/**
 * The actions of the target the path names (`:targetId`, a controller id; 404 when there is none):
 * its index `target` lists them, and an action of another target is a 404 saying so (reference §3.1).
 */
export function actionsOfTargetInPath(store: Pick<Reads, 'get' | 'lookup'>) {
  return async (req: Request, tenant: Tenant): Promise<ActorScope<typeof ACTION>> => {
    const controllerId = pathText(req, 'targetId');
    const target = await loadActorByKeyOr404(store, tenant, BY_CONTROLLER_ID, controllerId);
    return {
      index: 'target', key: String(target.id),
      belongs: (a) => a.targetId === target.id,
      stray: () => new AppError('NOT_FOUND', `Action with given identifier {${pathId(req, 'actionId', 'Action')}} is not assigned to target {${controllerId}}.`),
    };
  };
}

/** The action (`:actionId`) of the target of the path, else 404 (for routes beside the kit's, such as its status history). */
export async function targetActionOr404(store: Pick<Reads, 'get' | 'lookup'>, tenant: Tenant, req: Request): Promise<Stored<ActionRecord>> {
  const scope = await actionsOfTargetInPath(store)(req, tenant);
  return loadActorOr404(store, tenant, ACTION, pathId(req, 'actionId', 'Action'), scope);
}
