import type { MultiIndexOf } from '../domain/kinds.js';
import type { Page, Store, Stored, Tenant } from './port.js';

/** The most ids a read of "all of a kind" or "all under an index key" takes before answering. */
export const SCAN_LIMIT = 1_000_000;
/** The page that reads everything, up to SCAN_LIMIT. */
export const SCAN_ALL: Page = { offset: 0, limit: SCAN_LIMIT };

/** The page that reads the first id and the count. */
const FIRST: Page = Object.freeze({ offset: 0, limit: 1 });

/** Ids per getMany round trip. */
const BATCH = 1000;

/** The records of these ids that exist, in id order given, in batched round trips. */
export async function loadRecords<T>(
  store: Pick<Store, 'getMany'>, tenant: Tenant, kind: string, ids: readonly number[],
): Promise<Stored<T>[]> {
  const out: Stored<T>[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    for (const r of await store.getMany<T>(tenant, kind, ids.slice(i, i + BATCH))) if (r !== undefined) out.push(r);
  }
  return out;
}

/**
 * Whether a kind holds no record, or one key of its multi index (`under`) no id. The idle looks
 * (scheduler/runner.ts) read it through the store's cached view: it costs no command while it stays as it is.
 */
export async function holdsNone<K extends string>(
  reads: Pick<Store, 'ids' | 'members'>, tenant: Tenant, kind: K, under?: readonly [MultiIndexOf<K>, string],
): Promise<boolean> {
  const page = under === undefined ? await reads.ids(tenant, kind, FIRST) : await reads.members(tenant, kind, under[0], under[1], FIRST);
  return page.total === 0;
}

/** The distinct records of these ids (nulls skipped) that exist, by id. */
export async function loadMap<T>(
  store: Pick<Store, 'getMany'>, tenant: Tenant, kind: string, ids: Iterable<number | null>,
): Promise<Map<number, T>> {
  const distinct = [...new Set([...ids].filter((x): x is number => x !== null))];
  return new Map((await loadRecords<T>(store, tenant, kind, distinct)).map((r) => [r.id, r.value]));
}

/**
 * How many records under one key of a multi index give each value of `valueOf`, reading them in
 * batches without holding them (statistics). A kind nothing was ever written for counts nothing.
 */
export async function countValues<T, K extends string>(
  store: Pick<Store, 'members' | 'getMany'>, tenant: Tenant, kind: K, index: MultiIndexOf<K>, key: string, valueOf: (record: T) => string,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let offset = 0; offset < SCAN_LIMIT; offset += BATCH) {
    const page = await store.members(tenant, kind, index, key, { offset, limit: BATCH });
    for (const r of await store.getMany<T>(tenant, kind, page.ids)) {
      if (r === undefined) continue;
      const value = valueOf(r.value);
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    if (page.ids.length < BATCH) break;
  }
  return counts;
}
