/**
 * The Store port. Two adapters implement it: `memory` (embedded default) and `redis` (production).
 * One contract suite (test/contract) runs unchanged against both.
 *
 * Model: per tenant, records of a `kind` ("target", "action", ...) with numeric ids. Each record is a
 * JSON value with a version (1 on create, +1 per write). Writes are compare-and-set on the version and
 * are committed atomically in groups (one Lua script in Redis), together with the effects they emit
 * and, optionally, an idempotency marker for the event that caused them.
 *
 * Secondary indexes are derived from the value by the pure `indexes` function of the kind's schema,
 * so callers never maintain them by hand: the adapter diffs the entries of `before` and `after`.
 * - unique: (index, key) -> id, claimed atomically; a taken key fails the whole commit.
 * - multi:  (index, key) -> sorted set of ids (score defaults to the id, so pages come in id order;
 *           a numeric score allows range queries such as "last poll before t").
 */

import type { MultiIndexOf, UniqueIndexOf } from '../domain/kinds.js';
import type { KindSchema } from '../domain/record-schema.js';

export type Tenant = string;

export interface Stored<T> {
  readonly id: number;
  readonly version: number;
  readonly value: T;
}

export type { IndexEntries, KindSchema } from '../domain/record-schema.js';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = Readonly<Record<string, KindSchema<any>>>;

export interface Write {
  readonly kind: string;
  readonly id: number;
  /** The version read; 0 means "must not exist yet" (create). */
  readonly expect: number;
  /**
   * A create (expect 0) of an id this caller just reserved with `nextIds`: no other write can hold it,
   * so the Redis adapter does not check that it is free (a command fewer per status entry).
   */
  readonly fresh?: boolean;
  /** The value read at `expect`; undefined for a create. Used to diff index entries. */
  readonly before?: unknown;
  /** The new value; null deletes the record (and its index entries). */
  readonly after: unknown;
}

/**
 * A message committed with the state change that emitted it (what the actors send each other, typed
 * as `Effect` in src/domain/effects.ts). The store keeps it as opaque JSON with a `type`.
 */
export interface EffectMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A commutative increment of a named counter (a field of a per-tenant counter hash). */
export interface CounterIncrement {
  readonly key: string;
  readonly field: string;
  readonly by: number;
}

export interface Commit {
  readonly writes: readonly Write[];
  readonly effects?: readonly EffectMessage[];
  /**
   * Counter increments applied in the same atomic commit (HINCRBY in the Redis commit script). They
   * commute, so commits that only share counters never conflict on them (a rollout group's counts).
   */
  readonly counters?: readonly CounterIncrement[];
  /** When set, the commit happens at most once for this key (the id of the event being handled). */
  readonly dedupe?: string;
  /**
   * What the live event streams show of this commit (src/events): appended, as one journal entry, to
   * the tenant's journal in the same atomic commit. The journal keeps the newest JOURNAL_LENGTH entries.
   */
  readonly journal?: readonly EffectMessage[];
}

/** One commit's part of a tenant's journal. */
export interface JournalEntry {
  /** `<milliseconds>-<sequence>` (a Redis stream id): increasing within a tenant; the time is when it was committed. */
  readonly id: string;
  readonly events: readonly EffectMessage[];
}

export interface JournalRead {
  /** Entries after the id asked for, oldest first (none when no id was given). */
  readonly entries: readonly JournalEntry[];
  /** The newest entry's id, `0-0` before the first: read after it to follow the journal from now on. */
  readonly last: string;
  /** Entries after the id asked for were dropped already (the journal keeps a bounded number): the reader missed some. */
  readonly gap: boolean;
}

export type CommitResult =
  | { readonly ok: true; readonly versions: readonly number[] }
  | { readonly ok: false; readonly reason: 'stale-version'; readonly kind: string; readonly id: number }
  | { readonly ok: false; readonly reason: 'unique-conflict'; readonly kind: string; readonly index: string; readonly key: string }
  | { readonly ok: false; readonly reason: 'duplicate' };

export interface QueuedEffect {
  /** Queue position (a stream entry id in Redis); pass it to ackEffects. */
  readonly id: string;
  readonly tenant: Tenant;
  /** Stable id of this effect, the same on every redelivery: handlers dedupe on it. */
  readonly eventId: string;
  readonly effect: EffectMessage;
  /** 1 on first delivery; more when it was reclaimed from a consumer that did not ack. */
  readonly deliveries: number;
}

export interface Page {
  readonly offset: number;
  readonly limit: number;
  /** Descending id (or score) order. */
  readonly desc?: boolean;
}

export interface IdPage {
  readonly ids: readonly number[];
  readonly total: number;
}

export interface ReadEffectsOptions {
  readonly consumer: string;
  readonly count: number;
  /** How long to wait for new effects when there are none (0: do not wait). */
  readonly blockMs: number;
  /** Effects delivered to some consumer but not acked for this long are handed out again. */
  readonly reclaimIdleMs: number;
}

/** The last poll of a device: written behind in batches, kept apart from the target record. */
export interface PollRecord {
  readonly at: number;
  readonly address: string | null;
}

/** The reads both the store and its cached view offer. */
export type Reads = Pick<Store, 'get' | 'getMany' | 'lookup' | 'members'>;

/** Returned by the `peek*` reads when the value is not in the cache and must be read asynchronously. */
export const MISS: unique symbol = Symbol('miss');
export type Miss = typeof MISS;

/**
 * Reads served from an in-process cache that the backing service keeps coherent (Redis: RESP3
 * client-side caching with invalidation on every write by any instance). For the DDI poll hot path,
 * and for the scheduler's idle looks (src/scheduler/runner.ts: whether an index, or a kind, holds
 * anything costs no command while it stays as it is). The `peek*` variants answer synchronously from
 * the cache, or MISS: a poll whose data is cached then runs without creating a single promise.
 */
export interface CachedReads extends Reads, Pick<Store, 'ids'> {
  /**
   * Moves whenever a value a `peek*` read answered may no longer be current: a write this process
   * applied or learnt of, a value replaced, a reset. While it stays the same, every peek answers what it
   * answered before or MISS (on Redis: a value evicted from the cache since, whose later writes still
   * move it), so a caller may keep what it derived from them (the poll lane's per-device slots) and
   * skip the reads. Nothing else about it is promised.
   */
  readonly changes: number;
  peekGet<T>(tenant: Tenant, kind: string, id: number): Stored<T> | undefined | Miss;
  peekLookup<K extends string>(tenant: Tenant, kind: K, index: UniqueIndexOf<K>, key: string): number | undefined | Miss;
  peekMembers<K extends string>(tenant: Tenant, kind: K, index: MultiIndexOf<K>, key: string, page: Page): IdPage | Miss;
}

export interface Store {
  readonly kind: 'memory' | 'redis';
  /** Cached reads (the memory store is its own cache). */
  readonly cached: CachedReads;

  /** Reserves `count` consecutive ids of a kind and returns the first. Ids start at 1. */
  nextIds(tenant: Tenant, kind: string, count?: number): Promise<number>;

  get<T>(tenant: Tenant, kind: string, id: number): Promise<Stored<T> | undefined>;
  getMany<T>(tenant: Tenant, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]>;

  /** All writes, index changes, effects and the dedupe marker, or nothing. */
  commit(tenant: Tenant, commit: Commit): Promise<CommitResult>;

  /** The id holding a unique key, if any. */
  lookup<K extends string>(tenant: Tenant, kind: K, index: UniqueIndexOf<K>, key: string): Promise<number | undefined>;
  lookupMany<K extends string>(
    tenant: Tenant, kind: K, index: UniqueIndexOf<K>, keys: readonly string[],
  ): Promise<(number | undefined)[]>;

  /** All ids of a kind, in id order. */
  ids(tenant: Tenant, kind: string, page: Page): Promise<IdPage>;
  /** Ids under one key of a multi index, in score order. */
  members<K extends string>(tenant: Tenant, kind: K, index: MultiIndexOf<K>, key: string, page: Page): Promise<IdPage>;
  /** Ids under one key of a multi index whose score lies in [min, max]. */
  range<K extends string>(
    tenant: Tenant, kind: K, index: MultiIndexOf<K>, key: string, min: number, max: number, page: Page,
  ): Promise<IdPage>;
  /** Number of records of a kind, or of ids under one multi-index key. */
  count<K extends string>(tenant: Tenant, kind: K, index?: MultiIndexOf<K>, key?: string): Promise<number>;

  /** The fields of each counter hash (a missing one: empty), e.g. a rollout group's action counts. */
  counters(tenant: Tenant, keys: readonly string[]): Promise<Record<string, number>[]>;
  /** Removes counter hashes (their rollout is gone). */
  dropCounters(tenant: Tenant, keys: readonly string[]): Promise<void>;

  /** Next effects of these tenants for one consumer; reclaims effects other consumers left unacked. */
  readEffects(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]>;
  ackEffects(effects: readonly Pick<QueuedEffect, 'tenant' | 'id'>[]): Promise<void>;
  /** Effects committed but not yet acked (for tests and /metrics). */
  pendingEffects(tenant: Tenant): Promise<number>;

  /**
   * The tenant's journal after `after` (a JournalEntry id), at most `count` entries; with `after`
   * undefined, no entries, only where the journal stands. Every instance reads every entry (unlike effects).
   */
  readJournal(tenant: Tenant, after: string | undefined, count: number): Promise<JournalRead>;

  /**
   * Write-behind poll data (ARCHITECTURE.md, the poll hot path): the newest poll per target id, in
   * keys no hot-path read touches, so a poll never invalidates a cached target. Idempotent upserts.
   */
  recordPolls(tenant: Tenant, polls: readonly (PollRecord & { readonly id: number })[]): Promise<void>;
  getPolls(tenant: Tenant, ids: readonly number[]): Promise<(PollRecord | undefined)[]>;
  /** Target ids whose last poll lies in [min, max], oldest first. */
  pollRange(tenant: Tenant, min: number, max: number, page: Page): Promise<IdPage>;
  forgetPolls(tenant: Tenant, ids: readonly number[]): Promise<void>;

  /**
   * Removes everything of one tenant: records, indexes, id sequences, counters, effects, journal, poll
   * data and dedupe markers (a deleted tenant, src/tenancy). Leases are not per tenant and expire.
   * Idempotent; a write committed meanwhile may leave a key, which a second call removes.
   */
  dropTenant(tenant: Tenant): Promise<void>;

  /** Takes or renews a named lease for `owner`; false when another owner holds it. */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;

  /** Throws StoreUnavailableError when the backing service does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by an adapter when its backing service cannot be reached; HTTP answers 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
