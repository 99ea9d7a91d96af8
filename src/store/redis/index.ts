import type { Schema, Store } from '../port.js';
import { StoreUnavailableError } from '../port.js';
import { createConnection, deadlineGuard, rethrow } from './connection.js';
import type { ConnectionOptions, RedisConnection, RedisTarget } from './connection.js';
import { RedisStore } from './redis-store.js';
import { RedisCachedReads, TrackingCache } from './cached-reads.js';
import { dropUnusedKeys, migrateUniqueBuckets, packRecords } from './migrate.js';
import { checkHashEncoding } from './hash-encoding.js';

export interface RedisStoreOptions {
  /** How long opening waits for the first connection before failing (ms). Default 5000. */
  readonly openTimeoutMs?: number;
  /** Longest pause between reconnect attempts while Redis is down (ms). Default 1000. */
  readonly reconnectMaxDelayMs?: number;
  /** ping() fails when Redis does not answer within this (ms). Default 1000. */
  readonly pingTimeoutMs?: number;
  /** Other commands fail with StoreUnavailableError when Redis does not answer within this (ms; 0: never). Default 2000. */
  readonly commandTimeoutMs?: number;
  /** Entries of the client-side cache behind `store.cached` (0: no cache, cached reads go to Redis). Default 400000. */
  readonly cacheEntries?: number;
  /**
   * Replicas that must confirm a commit before it counts as done, or every online one when fewer are
   * online (Redis WAIT, within commandTimeoutMs; a shortfall answers StoreUnavailableError). 0
   * (default): acknowledge on the master's word, so a failover may lose the last writes. Costs two
   * commands per commit (INFO replication, WAIT), and each WAIT holds up its node connection for one
   * replica round trip.
   */
  readonly waitReplicas?: number;
  /** Cluster only: how often the client compares its slot map with the cluster's, to follow failovers (ms). Default 1000. */
  readonly topologyCheckMs?: number;
  /** Receives connection errors (repeated while Redis is down); log them, do not throw. Default: ignore. */
  readonly onError?: (err: Error) => void;
  /** Receives, once at open, what Redis is configured to do worse than it could (checkHashEncoding). Default: not checked. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Connects to Redis and returns the store. `target` is the URL of one server
 * (`redis://[[user]:password@]host:port[/db]`) or the URLs of some nodes of a Redis Cluster (the
 * client learns the others; every key a command names carries its tenant's hash tag, so a tenant's
 * keys share one slot). Fails with StoreUnavailableError when Redis does not answer within
 * `openTimeoutMs`; once open, the store survives outages: commands fail fast with
 * StoreUnavailableError and the client reconnects forever (and, on a cluster, follows failovers).
 * Before it returns, unique indexes of the layout before buckets are moved into buckets, keys of earlier
 * layouts that nothing reads are deleted, records of packed kinds kept one per hash by earlier versions
 * are moved into their packed hashes (migrate.ts) and, with `onWarning`, Redis's hash encoding setting is checked (hash-encoding.ts).
 */
export async function openRedisStore(target: RedisTarget, schema: Schema, options: RedisStoreOptions = {}): Promise<Store> {
  const openTimeoutMs = options.openTimeoutMs ?? 5000;
  let store: RedisStore | undefined;
  const connection: ConnectionOptions = {
    reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 1000,
    connectTimeoutMs: Math.min(openTimeoutMs, 2000),
    onError: (err) => {
      store?.connectionFailed();
      options.onError?.(err);
    },
    ...(options.topologyCheckMs === undefined ? {} : { topologyCheckMs: options.topologyCheckMs }),
  };
  const where = typeof target === 'string' ? redact(target) : `the cluster of ${target.map(redact).join(', ')}`;
  const open = async (cache?: TrackingCache): Promise<RedisConnection> => {
    const conn = createConnection(target, cache === undefined ? connection : { ...connection, cache });
    try {
      await conn.open(openTimeoutMs);
    } catch (err) {
      throw new StoreUnavailableError(`cannot reach redis at ${where} within ${openTimeoutMs} ms`, { cause: err });
    }
    return conn;
  };
  const timeouts = {
    pingTimeoutMs: options.pingTimeoutMs ?? 1000,
    commandTimeoutMs: options.commandTimeoutMs ?? 2000,
    waitReplicas: options.waitReplicas ?? 0,
  };
  const main = await open();
  try {
    const guard = deadlineGuard(timeouts.commandTimeoutMs);
    await migrateUniqueBuckets(main, guard);
    await dropUnusedKeys(main, guard, schema);
    await packRecords(main, guard, schema);
    if (options.onWarning !== undefined) await checkHashEncoding({ configGet: (name) => guard(main.configGet(name)) }, options.onWarning);
  } catch (err) {
    await main.close();
    return rethrow(err);
  }
  const cacheEntries = options.cacheEntries ?? 400_000;
  if (cacheEntries <= 0) return (store = new RedisStore(main, schema, timeouts));
  // The cached view reads through its own connection (one per node on a cluster), whose RESP3
  // client-side cache Redis keeps coherent: a write by any instance invalidates the entries of the
  // keys it touched, and a lost connection empties the cache.
  // node-redis's client-side cache only turns tracking on and reports invalidations (it keeps no
  // value, see TrackingCache): the parsed values live in RedisCachedReads.
  const tracking = new TrackingCache({ recordStats: false });
  let cacheConnection: RedisConnection;
  try {
    cacheConnection = await open(tracking);
  } catch (err) {
    await main.close();
    throw err;
  }
  const reader = new RedisStore(cacheConnection, schema, timeouts);
  const reads = new RedisCachedReads(reader, schema, tracking, cacheEntries);
  const cache = { reads, written: (keys: readonly string[]) => tracking.written(keys), close: () => reader.close() };
  return (store = new RedisStore(main, schema, timeouts, cache));
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export { RedisStore };
export type { RedisTarget };
