import { afterEach, beforeEach } from 'vitest';
import type { Commit, CommitResult, Schema, Store, Stored, Write } from '../../src/store/port.js';
import { uniqueTenant } from '../helpers/redis.js';

/** The record the contract suite stores: every index type in one kind. */
export interface Thing {
  readonly name: string;
  readonly group?: string;
  /** A score (e.g. a last-poll time) in the `seen` multi index. */
  readonly seen?: number;
  readonly tags?: readonly string[];
  readonly [more: string]: unknown;
}

export const THING = 'thing';
/** A kind that is not in the schema: it has no indexes. */
export const NOTE = 'note';
/**
 * An unlisted kind (KindSchema.unlisted): its records are listed by their thing only, no list of all its ids;
 * and packed (KindSchema.packed): on Redis, 32 consecutive ids share one hash.
 */
export const ENTRY = 'entry';

export const CONTRACT_SCHEMA: Schema = {
  [THING]: {
    indexes: (t: Thing) => ({
      unique: [['name', t.name]],
      multi: [
        ...(t.group === undefined ? [] : [['group', t.group] as const]),
        ...(t.seen === undefined ? [] : [['seen', 'all', t.seen] as const]),
        ...(t.tags ?? []).map((tag) => ['tag', tag] as const),
      ],
    }),
  },
  [ENTRY]: {
    indexes: (e: { readonly thing: number }) => ({ multi: [['thing', String(e.thing)]] }),
    unlisted: true,
    packed: true,
  },
};

export interface StoreContext {
  readonly store: Store;
  /** A tenant of this test alone, so tests can share one Redis. */
  readonly tenant: string;
  create(id: number, value: unknown, kind?: string): Promise<void>;
  update(id: number, from: Stored<unknown>, value: unknown, kind?: string): Promise<CommitResult>;
  mustGet<T = Thing>(id: number, kind?: string): Promise<Stored<T>>;
  commit(commit: Commit): Promise<CommitResult>;
}

/** Opens a fresh store and tenant before each test and closes the store after it. */
export function useStore(open: () => Promise<Store>): () => StoreContext {
  let ctx: StoreContext | undefined;
  beforeEach(async () => {
    const store = await open();
    const tenant = uniqueTenant('contract');
    ctx = {
      store,
      tenant,
      commit: (commit) => store.commit(tenant, commit),
      async create(id, value, kind = THING) {
        const result = await store.commit(tenant, { writes: [{ kind, id, expect: 0, after: value }] });
        if (!result.ok) throw new Error(`create ${kind} ${id} failed: ${JSON.stringify(result)}`);
      },
      update: (id, from, value, kind = THING) => store.commit(tenant, { writes: [updateOf(kind, id, from, value)] }),
      async mustGet<T>(id: number, kind = THING) {
        const stored = await store.get<T>(tenant, kind, id);
        if (stored === undefined) throw new Error(`${kind} ${id} missing`);
        return stored;
      },
    };
  });
  afterEach(async () => {
    await ctx?.store.close();
    ctx = undefined;
  });
  return () => {
    if (ctx === undefined) throw new Error('store context used outside a test');
    return ctx;
  };
}

export function updateOf(kind: string, id: number, from: Stored<unknown>, after: unknown): Write {
  return { kind, id, expect: from.version, before: from.value, after };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
