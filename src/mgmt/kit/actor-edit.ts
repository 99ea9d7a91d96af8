import { edited } from '../../actors/outcomes.js';
import type { ActorEditor } from '../../actors/roles.js';
import { touched } from '../../domain/audit.js';
import { ENTITY, type ActorKind, type RecordOf } from '../../domain/kinds.js';
import type { Tenant } from '../../store/port.js';

export interface ActorEditDeps {
  readonly runtime: Pick<ActorEditor, 'update'>;
  now(): number;
}

/**
 * A field edit of one actor by a Management caller: `change` runs inside the runtime's `update` (the
 * only writer of actor records; again on a retry) and the audit fields are stamped with the caller
 * and the time here, once. Answers the actor after the edit, or the API error of the runtime's
 * outcome: 404 naming it as `name` (default: its id), 409 on a lost race.
 */
export async function editActor<K extends ActorKind>(
  deps: ActorEditDeps, tenant: Tenant, kind: K, id: number, by: string,
  change: (current: RecordOf<K>) => RecordOf<K> | Promise<RecordOf<K>>, name: string | number = id,
): Promise<RecordOf<K> | undefined> {
  const now = deps.now();
  const result = await deps.runtime.update(tenant, kind, id, async (current) => touched(await change(current), by, now));
  return edited(result, ENTITY[kind], name)[0];
}
