import { BasicPooledClientSideCache, type RedisArgument } from 'redis';
import { MISS, type CachedReads, type IdPage, type Miss, type Page, type Schema, type Stored, type Tenant } from '../port.js';
import { freezeJson } from '../memory/freeze-json.js';
import { isPacked } from '../indexing.js';
import { allKey, multiKey, recordPlace, tenantTag, uniqueKey } from './keys.js';

type HandleCache = BasicPooledClientSideCache['handleCache'];

/**
 * node-redis's client-side cache provider, used for its tracking alone: it turns RESP3 tracking on
 * for the reading connection and reports every invalidation Redis pushes (a key, or all keys when
 * the connection was lost or Redis flushed) to the parsed-value cache below. The pooled variant,
 * because a cluster client accepts only that one: it is shared among the node connections, each
 * tracking the keys read through it, and empties (here: reports all keys) when any node connection
 * fails or the slot map is rediscovered. A single-server client uses it like the basic one.
 */
export class TrackingCache extends BasicPooledClientSideCache {
  #listener: ((key: string | null) => void) | undefined;

  /**
   * Every read goes to Redis: node-redis keeps no value. RedisCachedReads holds the parsed values and
   * reaches here only on its misses, so a value kept here too would be a second copy, returned through a
   * structuredClone; and node-redis (5.12) never forgets the Redis key of a value it evicts (its
   * key-to-cache-keys map is cleaned only by an invalidation of that key), so a bounded cache still
   * grew by a Map entry, a Set and the command's cache-key string per key ever read (with RedisCachedReads'
   * own Set per key, 1,159 of 5,195 bytes of V8 heap per polled device with 10,000 devices: docs/capacity.md).
   */
  override async handleCache(...[, parser, fn, transformReply, typeMapping]: Parameters<HandleCache>): ReturnType<HandleCache> {
    const reply = await fn();
    return transformReply === undefined ? reply : transformReply(reply, parser.preserve, typeMapping);
  }

  onInvalidate(listener: (key: string | null) => void): void {
    this.#listener = listener;
  }

  override invalidate(key: RedisArgument | null): void {
    super.invalidate(key);
    this.#listener?.(key === null ? null : key.toString());
  }

  /**
   * Keys this process has just written: dropped from both caches now rather than when Redis's push
   * arrives (on another connection, possibly after the commit's answer), so this process reads its
   * own writes at once; other processes see them within the push's delay.
   */
  written(keys: readonly string[]): void {
    for (const key of keys) this.invalidate(key);
  }

  override clear(resetStats?: boolean): void {
    super.clear(resetStats);
    this.#listener?.(null);
  }
}

interface InFlight {
  readonly promise: Promise<unknown>;
  invalidated: boolean;
}

/** The cached values under one parent (a kind's records, one unique index, one multi-index key's pages). */
class Bucket {
  readonly slots = new Map<string | number, Slot>();
  constructor(
    /** Where this bucket hangs, so that it is removed when its last value goes. */
    readonly parent: Map<string, Bucket> | undefined,
    readonly key: string,
  ) {}
}

/** One cached value, where it sits, and the Redis key whose invalidation drops it. */
class Slot {
  /** Read since the clock hand last passed (second chance). */
  used = true;
  dead = false;
  constructor(
    readonly v: unknown,
    readonly bucket: Bucket,
    readonly sub: string | number,
    readonly redisKey: string,
  ) {}
}

type Nest<T> = Map<string, T>;
const nest = <T>(m: Nest<T>, k: string, make: () => T): T => {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
};

/** A page as a number (the active-actions page of every poll is one), or as text when it does not fit. */
function pageKey(page: Page): string | number {
  const d = page.desc === true ? 1 : 0;
  return page.limit < 65_536 && page.offset < 2 ** 30 ? (page.offset * 65_536 + page.limit) * 2 + d : `${page.offset}:${page.limit}:${d}`;
}

/**
 * The poll hot path's reads on Redis: parsed, frozen values held in process and dropped the moment
 * Redis reports the underlying key changed (RESP3 tracking on the reading connection). A hit costs a
 * few map lookups by the caller's own strings and numbers (tenant, kind, index, id or key): no
 * command, no JSON parse, no timer, and no key string built, which on a 100,000-device fleet costs
 * more than everything else a cached poll does. A miss reads through `inner` (the same reads on the
 * tracked connection), and a value whose key was invalidated while it was being read is not kept.
 * At most `maxEntries` values are held; beyond that the clock (second-chance) policy evicts one not
 * read since the hand last passed it: a hit only sets a flag.
 */
export class RedisCachedReads implements CachedReads {
  readonly #inner: CachedReads;
  readonly #schema: Schema;
  readonly #max: number;
  // tenant -> kind -> (id -> value)
  #records = new Map<string, Nest<Bucket>>();
  // tenant -> kind -> index -> (key -> value)
  #lookups = new Map<string, Nest<Nest<Bucket>>>();
  // tenant -> kind -> index -> key -> (page -> value)
  #members = new Map<string, Nest<Nest<Nest<Bucket>>>>();
  // tenant -> kind -> (page -> value): pages of all ids of a kind
  #ids = new Map<string, Nest<Bucket>>();
  /**
   * Redis key -> the value derived from it, or the values when several are (a hash or sorted set serves
   * several lookups): a record's key has one, and a Set for it would cost about 150 bytes more per key.
   */
  #deps = new Map<string, Slot | Set<Slot>>();
  /** Reads under way: Redis key -> (sub -> read), so an invalidation finds those of its key without a scan. */
  readonly #inFlight = new Map<string, Map<string | number, InFlight>>();
  #ring: Slot[] = [];
  #hand = 0;
  #live = 0;
  /** CachedReads.changes: every value invalidated or replaced, every reset, and every write of an evicted value. */
  #changes = 0;
  /**
   * Redis keys of values evicted since their last invalidation. An eviction does not move `changes`: what a
   * caller derived from the value is still current (the poll lane's slots, which outlive the entries when the
   * fleet's values outnumber cacheEntries), and Redis still tracks the key for this connection, so its next
   * write is pushed here and moves `changes` then. A key read again leaves (its new value's drop moves
   * `changes`). At most MAX_EVICTED or cacheEntries of them, whichever is more (beyond: cleared, a move).
   */
  readonly #evicted = new Set<string>();

  constructor(inner: CachedReads, schema: Schema, tracking: TrackingCache, maxEntries: number) {
    this.#inner = inner;
    this.#schema = schema;
    this.#max = Math.max(1, maxEntries);
    tracking.onInvalidate((key) => this.#invalidate(key));
  }

  get<T>(tenant: Tenant, kind: string, id: number): Promise<Stored<T> | undefined> {
    const hit = this.peekGet<T>(tenant, kind, id);
    if (hit !== MISS) return Promise.resolve(hit);
    const bucket = (): Bucket => {
      const kinds = nest(this.#records, tenant, () => new Map<string, Bucket>());
      return nest(kinds, kind, () => new Bucket(kinds, kind));
    };
    const { key } = recordPlace(tenantTag(tenant), kind, id, isPacked(this.#schema, kind));
    return this.#read(key, id, bucket, () => this.#inner.get<T>(tenant, kind, id));
  }

  getMany<T>(tenant: Tenant, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]> {
    return Promise.all(ids.map((id) => this.get<T>(tenant, kind, id)));
  }

  lookup(tenant: Tenant, kind: string, index: string, key: string): Promise<number | undefined> {
    const hit = this.peekLookup(tenant, kind, index, key);
    if (hit !== MISS) return Promise.resolve(hit);
    const bucket = (): Bucket => {
      const indexes = nest(nest(this.#lookups, tenant, () => new Map<string, Nest<Bucket>>()), kind, () => new Map<string, Bucket>());
      return nest(indexes, index, () => new Bucket(indexes, index));
    };
    // the slot depends on the hash of the key's bucket, so an invalidation drops that bucket's lookups only
    return this.#read(uniqueKey(tenantTag(tenant), kind, index, key), key, bucket, () => this.#inner.lookup(tenant, kind, index, key));
  }

  members(tenant: Tenant, kind: string, index: string, key: string, page: Page): Promise<IdPage> {
    const hit = this.peekMembers(tenant, kind, index, key, page);
    if (hit !== MISS) return Promise.resolve(hit);
    const bucket = (): Bucket => {
      const kinds = nest(this.#members, tenant, () => new Map<string, Nest<Nest<Bucket>>>());
      const keys = nest(nest(kinds, kind, () => new Map<string, Nest<Bucket>>()), index, () => new Map<string, Bucket>());
      return nest(keys, key, () => new Bucket(keys, key));
    };
    const fetch = (): Promise<IdPage> => this.#inner.members(tenant, kind, index, key, page);
    return this.#read(multiKey(tenantTag(tenant), kind, index, key), pageKey(page), bucket, fetch);
  }

  ids(tenant: Tenant, kind: string, page: Page): Promise<IdPage> {
    const hit = this.#peekIds(tenant, kind, page);
    if (hit !== MISS) return Promise.resolve(hit);
    const bucket = (): Bucket => {
      const kinds = nest(this.#ids, tenant, () => new Map<string, Bucket>());
      return nest(kinds, kind, () => new Bucket(kinds, kind));
    };
    return this.#read(allKey(tenantTag(tenant), kind), pageKey(page), bucket, () => this.#inner.ids(tenant, kind, page));
  }

  /** The cache hit of `ids` (not a peek of CachedReads: no hot path needs it without a promise). */
  #peekIds(tenant: Tenant, kind: string, page: Page): IdPage | Miss {
    return hit(this.#ids.get(tenant)?.get(kind)?.slots.get(pageKey(page))) as IdPage | Miss;
  }

  peekGet<T>(tenant: Tenant, kind: string, id: number): Stored<T> | undefined | Miss {
    return hit(this.#records.get(tenant)?.get(kind)?.slots.get(id)) as Stored<T> | undefined | Miss;
  }

  peekLookup(tenant: Tenant, kind: string, index: string, key: string): number | undefined | Miss {
    return hit(this.#lookups.get(tenant)?.get(kind)?.get(index)?.slots.get(key)) as number | undefined | Miss;
  }

  peekMembers(tenant: Tenant, kind: string, index: string, key: string, page: Page): IdPage | Miss {
    return hit(this.#members.get(tenant)?.get(kind)?.get(index)?.get(key)?.slots.get(pageKey(page))) as IdPage | Miss;
  }

  get changes(): number {
    return this.#changes;
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.#live;
  }

  #read<T>(redisKey: string, sub: string | number, bucket: () => Bucket, fetch: () => Promise<T>): Promise<T> {
    let flights = this.#inFlight.get(redisKey);
    const pending = flights?.get(sub);
    if (pending !== undefined) return pending.promise as Promise<T>;
    if (flights === undefined) this.#inFlight.set(redisKey, (flights = new Map<string | number, InFlight>()));
    const landed = (): void => {
      const now = this.#inFlight.get(redisKey);
      if (now?.delete(sub) === true && now.size === 0) this.#inFlight.delete(redisKey);
    };
    const flight: InFlight = {
      invalidated: false,
      promise: fetch().then(
        (value) => {
          landed();
          const frozen = freezeJson(value) as T;
          if (!flight.invalidated) this.#insert(bucket(), sub, redisKey, frozen);
          return frozen;
        },
        (err: unknown) => {
          landed();
          throw err;
        },
      ),
    };
    flights.set(sub, flight);
    return flight.promise as Promise<T>;
  }

  #insert(bucket: Bucket, sub: string | number, redisKey: string, v: unknown): void {
    const old = bucket.slots.get(sub);
    if (old !== undefined) this.#drop(old);
    this.#evicted.delete(redisKey);
    const slot = new Slot(v, bucket, sub, redisKey);
    bucket.slots.set(sub, slot);
    const deps = this.#deps.get(redisKey);
    if (deps === undefined) this.#deps.set(redisKey, slot);
    else if (deps instanceof Set) deps.add(slot);
    else this.#deps.set(redisKey, new Set([deps, slot]));
    this.#live++;
    const ring = this.#ring;
    if (ring.length < this.#max) {
      ring.push(slot);
      return;
    }
    // the clock: pass over values read since the last turn (clearing their flag), take the first
    // place whose value is gone or was not read
    for (;;) {
      const s = ring[this.#hand] as Slot;
      if (s.dead) break;
      if (!s.used) {
        this.#evict(s);
        break;
      }
      s.used = false;
      this.#hand = (this.#hand + 1) % ring.length;
    }
    ring[this.#hand] = slot;
    this.#hand = (this.#hand + 1) % ring.length;
  }

  #evict(slot: Slot): void {
    if (this.#evicted.size >= Math.max(this.#max, MAX_EVICTED)) {
      this.#evicted.clear();
      this.#changes++;
    }
    this.#evicted.add(slot.redisKey);
    this.#drop(slot, false);
  }

  #drop(slot: Slot, changed = true): void {
    if (slot.dead) return;
    slot.dead = true;
    this.#live--;
    if (changed) this.#changes++;
    const { bucket } = slot;
    if (bucket.slots.get(slot.sub) === slot) {
      bucket.slots.delete(slot.sub);
      if (bucket.slots.size === 0 && bucket.parent?.get(bucket.key) === bucket) bucket.parent.delete(bucket.key);
    }
    const deps = this.#deps.get(slot.redisKey);
    if (deps === slot) this.#deps.delete(slot.redisKey);
    else if (deps instanceof Set && deps.delete(slot) && deps.size === 0) this.#deps.delete(slot.redisKey);
  }

  #invalidate(redisKey: string | null): void {
    if (redisKey === null) {
      this.#changes++;
      this.#evicted.clear();
      for (const flights of this.#inFlight.values()) for (const f of flights.values()) f.invalidated = true;
      for (const slot of this.#ring) slot.dead = true;
      this.#records = new Map();
      this.#lookups = new Map();
      this.#members = new Map();
      this.#ids = new Map();
      this.#deps = new Map();
      this.#ring = [];
      this.#hand = 0;
      this.#live = 0;
      return;
    }
    if (this.#evicted.delete(redisKey)) this.#changes++;
    const flights = this.#inFlight.get(redisKey);
    if (flights !== undefined) for (const f of flights.values()) f.invalidated = true;
    const deps = this.#deps.get(redisKey);
    if (deps instanceof Set) for (const slot of [...deps]) this.#drop(slot);
    else if (deps !== undefined) this.#drop(deps);
  }
}

/** Evicted keys remembered (RedisCachedReads.#evicted) even when cacheEntries is smaller: about 80 bytes each. */
const MAX_EVICTED = 100_000;

/** A cached value (marked as read), or MISS. */
function hit(slot: Slot | undefined): unknown {
  if (slot === undefined) return MISS;
  slot.used = true;
  return slot.v;
}
