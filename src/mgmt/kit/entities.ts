import { AppError, notFound } from '../../domain/errors.js';
import type { CommitResult, Store, Stored, Tenant, Write } from '../../store/port.js';

/**
 * Store access shared by every Management resource: load-or-404, compare-and-set updates with retry,
 * atomic batch creates, and the mapping of store outcomes to hawkBit errors.
 */
const MAX_ATTEMPTS = 8;

export async function loadOr404<T>(store: Store, tenant: Tenant, kind: string, id: number, label: string): Promise<Stored<T>> {
  const found = await store.get<T>(tenant, kind, id);
  if (found === undefined) throw notFound(label, id);
  return found;
}

/** Like loadOr404, but soft-deleted entities count as missing. */
export async function loadLiveOr404<T extends { readonly deleted: boolean }>(
  store: Store, tenant: Tenant, kind: string, id: number, label: string,
): Promise<Stored<T>> {
  const found = await loadOr404<T>(store, tenant, kind, id, label);
  if (found.value.deleted) throw notFound(label, id);
  return found;
}

/** Throws the hawkBit error for a failed commit; returns nothing for a successful one. */
export function expectCommitted(result: CommitResult, what: string): void {
  if (result.ok) return;
  switch (result.reason) {
    case 'unique-conflict':
      throw new AppError('ALREADY_EXISTS', `${what} already exists (${result.index} '${result.key.replaceAll('\u0000', ':')}' is taken)`);
    case 'stale-version':
      throw new AppError('CONCURRENT_MODIFICATION', `${what} was modified concurrently; retry the request`);
    case 'duplicate':
      return;
  }
}

/**
 * Reads, changes and writes one record with compare-and-set, retrying when another writer got in
 * between. `change` may throw AppError to refuse; it may return extra writes to commit atomically.
 */
export async function updateRecord<T>(
  store: Store, tenant: Tenant, kind: string, id: number, label: string,
  change: (current: T) => T | { value: T; also: Write[] } | Promise<T | { value: T; also: Write[] }>,
): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await loadOr404<T>(store, tenant, kind, id, label);
    const changed = await change(current.value);
    const { value, also } = isWithAlso<T>(changed) ? changed : { value: changed, also: [] as Write[] };
    const result = await store.commit(tenant, { writes: [{ kind, id, expect: current.version, before: current.value, after: value }, ...also] });
    if (result.ok) return value;
    if (result.reason !== 'stale-version') expectCommitted(result, `${label} ${id}`);
  }
  throw new AppError('CONCURRENT_MODIFICATION', `${label} ${id} is being modified concurrently; retry the request`);
}

function isWithAlso<T>(x: unknown): x is { value: T; also: Write[] } {
  return typeof x === 'object' && x !== null && 'also' in x && 'value' in x && Array.isArray((x as { also: unknown }).also);
}

/** Deletes a record with compare-and-set (retrying), or throws 404. */
export async function deleteRecord(store: Store, tenant: Tenant, kind: string, id: number, label: string, also: Write[] = []): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await loadOr404<unknown>(store, tenant, kind, id, label);
    const result = await store.commit(tenant, { writes: [{ kind, id, expect: current.version, before: current.value, after: null }, ...also] });
    if (result.ok) return;
    if (result.reason !== 'stale-version') expectCommitted(result, `${label} ${id}`);
  }
  throw new AppError('CONCURRENT_MODIFICATION', `${label} ${id} is being modified concurrently; retry the request`);
}

/** Creates records of one kind in one atomic commit (all or none), with fresh ids. */
export async function createRecords<T extends { readonly id: number }>(
  store: Store, tenant: Tenant, kind: string, label: string, build: (id: number, index: number) => T, count: number,
): Promise<T[]> {
  if (count === 0) return [];
  const first = await store.nextIds(tenant, kind, count);
  const records = Array.from({ length: count }, (_, i) => build(first + i, i));
  const result = await store.commit(tenant, { writes: records.map((r) => ({ kind, id: r.id, expect: 0, after: r })) });
  expectCommitted(result, label);
  return records;
}

/** Loads records by id in one round trip, failing with 404 naming the first missing id. */
export async function loadAllOr404<T>(store: Store, tenant: Tenant, kind: string, ids: readonly number[], label: string): Promise<Stored<T>[]> {
  const found = await store.getMany<T>(tenant, kind, ids);
  return found.map((f, i) => {
    if (f === undefined) throw notFound(label, ids[i] ?? '?');
    return f;
  });
}
