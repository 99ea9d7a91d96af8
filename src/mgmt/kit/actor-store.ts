import { notFound, type AppError } from '../../domain/errors.js';
import { ENTITY, type ActorKind, type RecordOf, type UniqueIndexOf } from '../../domain/kinds.js';
import type { Reads, Stored, Tenant } from '../../store/port.js';

/**
 * Loading the actor records of the Management API (targets, actions, rollouts, groups) or answering
 * the catalogue's 404: by id, or by the unique key the API names them with (a target's controller
 * id). Only the actor runtime writes them: changes go through `command` (kit/commands.ts) or the
 * runtime's `update`; plain records load with kit/store.ts.
 */

/** How the API names an actor by a unique key: the kind's unique index and how a name becomes its key there. */
export interface ActorKey<K extends ActorKind> {
  readonly kind: K;
  readonly index: UniqueIndexOf<K>;
  key(name: string): string;
  /** The name of a record, as errors name it. */
  name(record: RecordOf<K>): string;
}

/** Narrows a load to the actors of one parent (a rollout's group, a target's action). */
export interface Within<T> {
  belongs(record: T): boolean;
  /** The answer for an actor of another parent; by default the same 404 as a missing one. */
  stray?: () => AppError;
}

/** The actor of this kind and id, else 404 naming it (`Rollout with given identifier {7} does not exist.`). */
export async function loadActorOr404<K extends ActorKind>(
  store: Pick<Reads, 'get'>, tenant: Tenant, kind: K, id: number, within?: Within<RecordOf<K>>,
): Promise<Stored<RecordOf<K>>> {
  const found = await store.get<RecordOf<K>>(tenant, kind, id);
  if (found === undefined) throw notFound(ENTITY[kind], id);
  if (within !== undefined && !within.belongs(found.value)) throw within.stray?.() ?? notFound(ENTITY[kind], id);
  return found;
}

/** The actor this name stands for in its unique index, else 404 naming it as given. */
export async function loadActorByKeyOr404<K extends ActorKind>(
  store: Pick<Reads, 'get' | 'lookup'>, tenant: Tenant, by: ActorKey<K>, name: string,
): Promise<Stored<RecordOf<K>>> {
  const id = await store.lookup(tenant, by.kind, by.index, by.key(name));
  const found = id === undefined ? undefined : await store.get<RecordOf<K>>(tenant, by.kind, id);
  if (found === undefined) throw notFound(ENTITY[by.kind], name);
  return found;
}
