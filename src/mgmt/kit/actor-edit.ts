import { edited } from '../../actors/outcomes.js';
import type { ActorEditor } from '../../actors/roles.js';
import type { EditResult } from '../../actors/runtime.js';
import { touched, type Audit } from '../../domain/audit.js';
import { ENTITY, type ActorKind, type RecordOf } from '../../domain/kinds.js';
import type { Tenant } from '../../store/port.js';

export interface ActorEditDeps {
  readonly runtime: Pick<ActorEditor, 'update' | 'updateJointly'>;
  now(): number;
}

/**
 * The audit stamp of a Management edit, the one place it is done: a record the change answers anew
 * carries the caller and the time as its last modification; one answered as it was stays unwritten.
 */
function stamp<R extends Audit>(before: R, after: R, by: string, at: number): R {
  return after === before ? after : touched(after, by, at);
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
  const result = await deps.runtime.update(tenant, kind, id, async (current) => stamp(current, await change(current), by, now));
  return edited(result, ENTITY[kind], name)[0];
}

/**
 * A field edit of several actors of one kind by a Management caller, in one atomic commit (a tag
 * toggled on targets, a group set): `change` sees the records as the attempt read them and answers
 * each one's next value (a record answered as it was is not written), and the changed ones are
 * stamped as `editActor` stamps. Answers the runtime's outcome: callers map it with `edited`, or
 * leave out a record deleted meanwhile (`missing`) and try again.
 */
export function editActors<K extends ActorKind>(
  deps: ActorEditDeps, tenant: Tenant, kind: K, ids: readonly number[], by: string,
  change: (current: readonly RecordOf<K>[]) => readonly RecordOf<K>[],
): Promise<EditResult<RecordOf<K>>> {
  const now = deps.now();
  return deps.runtime.updateJointly(tenant, kind, ids, (current) =>
    change(current).map((after, i) => stamp(current[i] as RecordOf<K>, after, by, now)));
}
