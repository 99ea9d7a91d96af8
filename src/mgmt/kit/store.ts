import { concurrent, keyTaken, notFound } from '../../domain/errors.js';
import { ENTITY, type PlainKind, type PlainTypes } from '../../domain/kinds.js';
import type { Store, Stored, Tenant, Write } from '../../store/port.js';
import { retryCommit, type Attempt, type Retried } from '../../store/retry.js';

/**
 * Reading and writing the plain records of the Management API (domain/kinds.ts `PlainTypes`; actor
 * records go through the actor runtime): load-or-404, compare-and-set changes retried on concurrent
 * writes, atomic batch creates, and hawkBit's errors for store outcomes. Kinds are typed, so each
 * call returns its kind's record.
 */
type R<K extends PlainKind> = PlainTypes[K];
type Change<T> = (current: T) => T | { value: T; also: Write[] } | Promise<T | { value: T; also: Write[] }>;

export async function loadOr404<K extends PlainKind>(store: Store, tenant: Tenant, kind: K, id: number): Promise<Stored<R<K>>> {
  const found = await store.get<R<K>>(tenant, kind, id);
  if (found === undefined) throw notFound(ENTITY[kind], id);
  return found;
}

/** Kinds whose records are soft-deleted while something refers to them. */
export type SoftDeletable = { readonly [K in PlainKind]: PlainTypes[K] extends { readonly deleted: boolean } ? K : never }[PlainKind];

/** Like loadOr404, but a soft-deleted record counts as missing. */
export async function loadLiveOr404<K extends SoftDeletable>(store: Store, tenant: Tenant, kind: K, id: number): Promise<Stored<R<K>>> {
  const found = await loadOr404(store, tenant, kind, id);
  if ((found.value as { readonly deleted: boolean }).deleted) throw notFound(ENTITY[kind], id);
  return found;
}

/** Records by id in one round trip, in the order given; 404 names the first missing one. */
export async function loadAllOr404<K extends PlainKind>(
  store: Store, tenant: Tenant, kind: K, ids: readonly number[],
): Promise<Stored<R<K>>[]> {
  const found = await store.getMany<R<K>>(tenant, kind, ids);
  return found.map((f, i) => {
    if (f === undefined) throw notFound(ENTITY[kind], ids[i] ?? '?');
    return f;
  });
}

/** The value of a retried commit, or hawkBit's error for why there is none. */
export function committed<T>(result: Retried<T>, what: string): T {
  if (result.ok) return result.value;
  switch (result.reason) {
    case 'unique-conflict':
      throw keyTaken(what, result.index, result.key);
    case 'contended':
    case 'duplicate':
      throw concurrent(what);
  }
}

/** Runs a compare-and-set attempt until it commits (see store/retry.ts); errors as `committed`. */
export async function commitOrThrow<T>(
  store: Store, tenant: Tenant, what: string, attempt: (n: number) => Promise<Attempt<T>>,
): Promise<T> {
  return committed(await retryCommit(store, tenant, attempt), what);
}

/**
 * Reads, changes and writes one record. `change` may throw AppError to refuse; it may return extra
 * writes to commit atomically; returning the record itself writes nothing.
 */
export async function updateRecord<K extends PlainKind>(
  store: Store, tenant: Tenant, kind: K, id: number, change: Change<R<K>>,
): Promise<R<K>> {
  return commitOrThrow<R<K>>(store, tenant, `${ENTITY[kind]} ${id}`, async () => {
    const current = await loadOr404(store, tenant, kind, id);
    const changed = await change(current.value);
    const { value, also } = withAlso(changed);
    if (value === current.value && also.length === 0) return { done: value };
    const writes: Write[] = [{ kind, id, expect: current.version, before: current.value, after: value }, ...also];
    return { commit: { writes }, result: () => value };
  });
}

/**
 * Changes several records of one kind in one atomic commit (all or none); 404 names the first
 * missing one. `change` sees all the records at once (in the order of `ids`) and answers each one's
 * next value, so it can decide over the whole set (a tag toggle); it runs again on every retry, on
 * the records as that attempt read them. Records returned as they were are not written.
 */
export async function updateAllRecords<K extends PlainKind>(
  store: Store, tenant: Tenant, kind: K, ids: readonly number[], change: (current: readonly R<K>[]) => readonly R<K>[],
): Promise<R<K>[]> {
  return commitOrThrow<R<K>[]>(store, tenant, ENTITY[kind], async () => {
    const found = await loadAllOr404(store, tenant, kind, ids);
    const out = [...change(found.map((f) => f.value))];
    if (out.length !== found.length) throw new Error(`${kind}: updateAllRecords' change answered ${out.length} records for ${found.length}`);
    const writes: Write[] = found.flatMap((f, i) => (
      out[i] === f.value ? [] : [{ kind, id: f.id, expect: f.version, before: f.value, after: out[i] }]
    ));
    return writes.length === 0 ? { done: out } : { commit: { writes }, result: () => out };
  });
}

/** Deletes a record (with what `also` adds for the record as it is then), or throws 404. */
export async function deleteRecord<K extends PlainKind>(
  store: Store, tenant: Tenant, kind: K, id: number, also: (current: Stored<R<K>>) => Promise<Write[]> = async () => [],
): Promise<R<K>> {
  return commitOrThrow<R<K>>(store, tenant, `${ENTITY[kind]} ${id}`, async () => {
    const current = await loadOr404(store, tenant, kind, id);
    const writes: Write[] = [{ kind, id, expect: current.version, before: current.value, after: null }, ...(await also(current))];
    return { commit: { writes }, result: () => current.value };
  });
}

/** Creates records of one kind in one atomic commit (all or none), with fresh ids. */
export async function createRecords<K extends PlainKind>(
  store: Store, tenant: Tenant, kind: K, count: number, build: (id: number, index: number) => R<K>,
): Promise<R<K>[]> {
  if (count === 0) return [];
  const first = await store.nextIds(tenant, kind, count);
  const records = Array.from({ length: count }, (_, i) => build(first + i, i));
  const writes = records.map((r, i) => ({ kind, id: first + i, expect: 0, after: r }));
  return committed(await retryCommit(store, tenant, async () => ({ commit: { writes }, result: () => records }), 1), ENTITY[kind]);
}

function withAlso<T>(x: T | { value: T; also: Write[] }): { value: T; also: Write[] } {
  const y = x as { value?: unknown; also?: unknown };
  if (typeof x === 'object' && x !== null && Array.isArray(y.also) && 'value' in y) return x as { value: T; also: Write[] };
  return { value: x as T, also: [] };
}
