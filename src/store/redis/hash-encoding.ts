import type { RedisConnection } from './connection.js';

/**
 * The Redis settings peregrine is measured and tested with (docs/capacity.md). Every record is a hash
 * of a version and its JSON (keys.ts), 150-700 bytes for targets, actions and status entries. Redis
 * keeps a hash in its compact listpack encoding only while every value is at most
 * `hash-max-listpack-value` bytes (default 64); above it each record is a hash table, about 160
 * bytes more per record: measured with `capacity --census`, 1,000 devices up to a finished update,
 * 4,340 -> 3,568 bytes per device in keys (the capped journal left out), and no more Redis CPU per
 * HGET, HMGET or HSET (0.61 -> 0.54, 0.96 -> 0.81, 0.85 -> 0.74 µs, medians of 8 alternating rounds). A record
 * larger than the setting is a hash table, as before. The test and benchmark redis-servers and the
 * shipped redis configuration (deploy/redis-peregrine.conf) use these values.
 */
export const REDIS_SETTINGS: Readonly<Record<string, string>> = { 'hash-max-listpack-value': '1024' };

const SETTING = 'hash-max-listpack-value';
const WANTED = Number(REDIS_SETTINGS[SETTING]);

/** REDIS_SETTINGS, with `over` over them, as redis-server command-line arguments (`--name value ...`). */
export function redisServerArgs(over: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries({ ...REDIS_SETTINGS, ...over }).flatMap(([name, value]) => [`--${name}`, value]);
}

/**
 * One warning when a Redis server (a cluster's master) keeps `hash-max-listpack-value` below
 * REDIS_SETTINGS's, naming the setting and what it costs. Says nothing when CONFIG is refused (as
 * some managed services do), unknown, or Redis does not answer: the store works either way.
 */
export async function checkHashEncoding(connection: Pick<RedisConnection, 'configGet'>, warn: (message: string) => void): Promise<void> {
  let values: readonly (string | undefined)[];
  try {
    values = await connection.configGet(SETTING);
  } catch {
    return;
  }
  const low = values.map(Number).filter((v) => Number.isFinite(v) && v < WANTED);
  if (low.length === 0) return;
  warn(
    `redis ${SETTING} is ${Math.min(...low)}, below ${WANTED}: each record (a hash holding 150-700 bytes of JSON) is then ` +
    'stored as a hash table, about 160 bytes more per record, about 650 bytes more per device that finished one update ' +
    `(docs/capacity.md). Set "${SETTING} ${WANTED}" in redis.conf (or CONFIG SET and CONFIG REWRITE); records written ` +
    'before are re-encoded when Redis next loads its data (a restart)',
  );
}
