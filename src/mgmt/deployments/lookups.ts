import { ACTION, type ActionRecord } from '../../domain/action.js';
import { AppError, notFound } from '../../domain/errors.js';
import { parsePathId } from '../kit/params.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Store, Stored, Tenant } from '../../store/port.js';

/** Path lookups shared by the deployment routes: target by controller id, action of a target. */

/** The target with this controller id (case-insensitive, as the unique index), or 404. */
export async function targetByControllerId(store: Store, tenant: Tenant, controllerId: string): Promise<Stored<TargetRecord>> {
  const id = await store.lookup(tenant, TARGET, 'controllerId', controllerId.toLowerCase());
  const found = id === undefined ? undefined : await store.get<TargetRecord>(tenant, TARGET, id);
  if (found === undefined) throw notFound('Target', controllerId);
  return found;
}

/** A positive id from a path parameter: 400 when it is not a number, 404 when no entity can have it. */
export function pathId(raw: string | undefined, entity: string): number {
  return parsePathId(raw ?? '', `${entity} id`, entity);
}

export async function actionOr404(store: Store, tenant: Tenant, actionId: number): Promise<Stored<ActionRecord>> {
  const found = await store.get<ActionRecord>(tenant, ACTION, actionId);
  if (found === undefined) throw notFound('Action', actionId);
  return found;
}

/** The action, which must belong to the target named in the path (else 404, reference §3.1). */
export async function targetActionOr404(store: Store, tenant: Tenant, controllerId: string, rawActionId: string | undefined): Promise<{
  target: Stored<TargetRecord>; action: Stored<ActionRecord>;
}> {
  const target = await targetByControllerId(store, tenant, controllerId);
  const action = await actionOr404(store, tenant, pathId(rawActionId, 'Action'));
  if (action.value.targetId !== target.id) {
    throw new AppError('NOT_FOUND', `Action with given identifier {${action.id}} is not assigned to target {${controllerId}}.`);
  }
  return { target, action };
}

/** The `MgmtPrincipal` user name (routes with Management auth always have one). */
export function username(principal: { readonly kind: string; readonly username?: string } | undefined): string {
  return principal?.kind === 'mgmt' && principal.username !== undefined ? principal.username : 'system';
}
