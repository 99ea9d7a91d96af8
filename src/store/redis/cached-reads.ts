import { BasicPooledClientSideCache, type RedisArgument } from 'redis';
import { LRUCache } from 'lru-cache';
import { MISS, type CachedReads, type IdPage, type Miss, type Page, type Stored, type Tenant } from '../port.js';
import { freezeJson } from '../memory/freeze-json.js';
import { multiKey, recordKey, tenantTag, uniqueKey } from './keys.js';

/**
 * node-redis's client-side cache, reporting every invalidation Redis pushes (a key, or all keys when
 * the connection was lost or Redis flushed) to the parsed-value cache below. The pooled variant,
 * because a cluster client accepts only that one: it shares the cache among its node connections,
 * each tracking the keys read through it, and empties it when any node connection fails or the slot
 * map is rediscovered. A single-server client uses it like the basic one.
 */
export class TrackingCache extends BasicPooledClientSideCache {
  #listener: ((key: string | null) => void) | undefined;

  onInvalidate(listener: (key: string | null) => void): void {
    this.#listener = listener;
  }

  override invalidate(key: RedisArgument | null): void {
    super.invalidate(key);
    this.#listener?.(key === null ? null : key.toString());
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

/**
 * The poll hot path's reads on Redis: parsed, frozen values held in process and dropped the moment
 * Redis reports the underlying key changed (RESP3 tracking on the reading connection). A hit costs a
 * map lookup: no command, no JSON parse, no timer. A miss reads through `inner` (the same reads on
 * the tracked connection), and a value whose key was invalidated while it was being read is not kept.
 */
export class RedisCachedReads implements CachedReads {
  readonly #inner: CachedReads;
  readonly #values: LRUCache<string, { readonly v: unknown }>;
  /** Redis key -> cache keys derived from it (a hash or sorted set serves several lookups). */
  readonly #deps = new Map<string, Set<string>>();
  readonly #inFlight = new Map<string, InFlight>();

  constructor(inner: CachedReads, tracking: TrackingCache, maxEntries: number) {
    this.#inner = inner;
    this.#values = new LRUCache({
      max: maxEntries,
      dispose: (_value, cacheKey) => this.#forget(cacheKey),
    });
    tracking.onInvalidate((key) => this.#invalidate(key));
  }

  get<T>(tenant: Tenant, kind: string, id: number): Promise<Stored<T> | undefined> {
    return this.#read(recordKey(tenantTag(tenant), kind, id), '', () => this.#inner.get<T>(tenant, kind, id));
  }

  getMany<T>(tenant: Tenant, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]> {
    return Promise.all(ids.map((id) => this.get<T>(tenant, kind, id)));
  }

  lookup(tenant: Tenant, kind: string, index: string, key: string): Promise<number | undefined> {
    return this.#read(uniqueKey(tenantTag(tenant), kind, index), key, () => this.#inner.lookup(tenant, kind, index, key));
  }

  members(tenant: Tenant, kind: string, index: string, key: string, page: Page): Promise<IdPage> {
    const sub = `${page.offset}:${page.limit}:${page.desc === true ? 'd' : 'a'}`;
    return this.#read(multiKey(tenantTag(tenant), kind, index, key), sub, () => this.#inner.members(tenant, kind, index, key, page));
  }

  peekGet<T>(tenant: Tenant, kind: string, id: number): Stored<T> | undefined | Miss {
    return this.#peek(recordKey(tenantTag(tenant), kind, id), '') as Stored<T> | undefined | Miss;
  }

  peekLookup(tenant: Tenant, kind: string, index: string, key: string): number | undefined | Miss {
    return this.#peek(uniqueKey(tenantTag(tenant), kind, index), key) as number | undefined | Miss;
  }

  peekMembers(tenant: Tenant, kind: string, index: string, key: string, page: Page): IdPage | Miss {
    return this.#peek(multiKey(tenantTag(tenant), kind, index, key), `${page.offset}:${page.limit}:${page.desc === true ? 'd' : 'a'}`) as IdPage | Miss;
  }

  #peek(redisKey: string, sub: string): unknown {
    const hit = this.#values.get(`${redisKey}\u0000${sub}`);
    return hit === undefined ? MISS : hit.v;
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.#values.size;
  }

  #read<T>(redisKey: string, sub: string, fetch: () => Promise<T>): Promise<T> {
    const cacheKey = `${redisKey}\u0000${sub}`;
    const hit = this.#values.get(cacheKey);
    if (hit !== undefined) return Promise.resolve(hit.v as T);
    const pending = this.#inFlight.get(cacheKey);
    if (pending !== undefined) return pending.promise as Promise<T>;
    const flight: InFlight = {
      invalidated: false,
      promise: fetch().then(
        (value) => {
          this.#inFlight.delete(cacheKey);
          const frozen = freezeJson(value) as T;
          if (!flight.invalidated) {
            this.#values.set(cacheKey, { v: frozen });
            let set = this.#deps.get(redisKey);
            if (set === undefined) this.#deps.set(redisKey, (set = new Set()));
            set.add(cacheKey);
          }
          return frozen;
        },
        (err: unknown) => {
          this.#inFlight.delete(cacheKey);
          throw err;
        },
      ),
    };
    this.#inFlight.set(cacheKey, flight);
    return flight.promise as Promise<T>;
  }

  #invalidate(redisKey: string | null): void {
    if (redisKey === null) {
      for (const f of this.#inFlight.values()) f.invalidated = true;
      this.#deps.clear();
      this.#values.clear();
      return;
    }
    const prefix = `${redisKey}\u0000`;
    for (const [cacheKey, f] of this.#inFlight) if (cacheKey.startsWith(prefix)) f.invalidated = true;
    const set = this.#deps.get(redisKey);
    if (set === undefined) return;
    this.#deps.delete(redisKey);
    for (const cacheKey of set) this.#values.delete(cacheKey);
  }

  #forget(cacheKey: string): void {
    const redisKey = cacheKey.slice(0, cacheKey.indexOf('\u0000'));
    const set = this.#deps.get(redisKey);
    if (set === undefined) return;
    set.delete(cacheKey);
    if (set.size === 0) this.#deps.delete(redisKey);
  }
}
