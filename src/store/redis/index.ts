import type { Schema, Store } from '../port.js';
import { StoreUnavailableError } from '../port.js';
import { awaitReady, createConnection } from './connection.js';
import type { ConnectionOptions } from './connection.js';
import { RedisStore } from './redis-store.js';
import { RedisCachedReads, TrackingCache } from './cached-reads.js';

export interface RedisStoreOptions {
  /** How long opening waits for the first connection before failing (ms). Default 5000. */
  readonly openTimeoutMs?: number;
  /** Longest pause between reconnect attempts while Redis is down (ms). Default 1000. */
  readonly reconnectMaxDelayMs?: number;
  /** ping() fails when Redis does not answer within this (ms). Default 1000. */
  readonly pingTimeoutMs?: number;
  /** Other commands fail with StoreUnavailableError when Redis does not answer within this (ms; 0: never). Default 2000. */
  readonly commandTimeoutMs?: number;
  /** Entries of the client-side cache behind `store.cached` (0: no cache, cached reads go to Redis). Default 100000. */
  readonly cacheEntries?: number;
  /** Receives connection errors (repeated while Redis is down); log them, do not throw. Default: ignore. */
  readonly onError?: (err: Error) => void;
}

/**
 * Connects to Redis (`redis://[[user]:password@]host:port[/db]`) and returns the store. Fails with
 * StoreUnavailableError when Redis does not answer within `openTimeoutMs`; once open, the store
 * survives outages: commands fail fast with StoreUnavailableError and the client reconnects forever.
 */
export async function openRedisStore(url: string, schema: Schema, options: RedisStoreOptions = {}): Promise<Store> {
  const openTimeoutMs = options.openTimeoutMs ?? 5000;
  const connection: ConnectionOptions = {
    reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 1000,
    connectTimeoutMs: Math.min(openTimeoutMs, 2000),
    onError: options.onError ?? (() => {}),
  };
  const client = createConnection(url, connection);
  client.connect().catch(() => {}); // failures reach the 'error' listener; attempts go on
  try {
    await awaitReady(client, openTimeoutMs);
  } catch (err) {
    client.destroy();
    throw new StoreUnavailableError(`cannot reach redis at ${redact(url)} within ${openTimeoutMs} ms`, { cause: err });
  }
  const timeouts = { pingTimeoutMs: options.pingTimeoutMs ?? 1000, commandTimeoutMs: options.commandTimeoutMs ?? 2000 };
  const openBlocker = () => createConnection(url, connection);
  const cacheEntries = options.cacheEntries ?? 100_000;
  if (cacheEntries <= 0) return new RedisStore(client, schema, openBlocker, timeouts);
  // The cached view reads through its own connection, whose RESP3 client-side cache Redis keeps
  // coherent: a write by any instance invalidates the entries of the keys it touched.
  const tracking = new TrackingCache({ ttl: 0, maxEntries: Math.min(cacheEntries, 10_000), evictPolicy: 'LRU', recordStats: false });
  const cacheClient = createConnection(url, { ...connection, cache: tracking });
  cacheClient.connect().catch(() => {});
  try {
    await awaitReady(cacheClient, openTimeoutMs);
  } catch (err) {
    client.destroy();
    cacheClient.destroy();
    throw new StoreUnavailableError(`cannot reach redis at ${redact(url)} within ${openTimeoutMs} ms`, { cause: err });
  }
  const reader = new RedisStore(cacheClient, schema, openBlocker, timeouts);
  return new RedisStore(client, schema, openBlocker, timeouts, { reads: new RedisCachedReads(reader, tracking, cacheEntries), close: () => reader.close() });
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export { RedisStore };
