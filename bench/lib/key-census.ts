import type { createClient } from 'redis';

/** One group of keys of the same shape (ids and the tenant tag replaced by `*`). */
export interface KeyGroup {
  readonly shape: string;
  readonly type: string;
  readonly keys: number;
  /** Sum of MEMORY USAGE (SAMPLES 0: every element counted). */
  readonly bytes: number;
  /** Keys per OBJECT ENCODING, e.g. `listpack 10000`. */
  readonly encodings: string;
  /** For hashes: mean field count; for record hashes also the mean length of the `d` (JSON) value. */
  readonly fields?: number;
  readonly valueBytes?: number;
}

/** `{t:DEFAULT}:r:action:17` -> `{t:*}:r:action:*`: tenant tag, numbers and ids become `*`. */
function shapeOf(key: string): string {
  return key
    .replace(/^\{t:[^}]*\}/, '{t:*}')
    .replace(/^\{lease:[^}]*\}/, '{lease:*}')
    .replace(/:u:([^:]+):([^:]+):\d+$/, ':u:$1:$2:*')
    .replace(/:m:([^:]+):([^:]+):.*$/, ':m:$1:$2:*')
    .replace(/:done:.*$/, ':done:*')
    .replace(/:(\d+)(?=:|$)/g, ':*');
}

/**
 * Every key of a (single-node) Redis, grouped by shape: count, MEMORY USAGE, encodings and, for
 * hashes, fields per key. For the capacity model: where a device's bytes go.
 */
export async function keyCensus(redis: ReturnType<typeof createClient>): Promise<KeyGroup[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const r = await redis.scan(cursor, { COUNT: 1000 });
    cursor = String(r.cursor);
    keys.push(...r.keys);
  } while (cursor !== '0');
  interface Acc { type: string; keys: number; bytes: number; enc: Map<string, number>; fields: number; value: number; values: number }
  const groups = new Map<string, Acc>();
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    const facts = await Promise.all(batch.map(async (key) => {
      const [type, bytes, enc] = await Promise.all([
        redis.type(key),
        redis.sendCommand<number | null>(['MEMORY', 'USAGE', key, 'SAMPLES', '0']),
        redis.sendCommand<string | null>(['OBJECT', 'ENCODING', key]),
      ]);
      const fields = type === 'hash' ? await redis.hLen(key) : 0;
      const value = type === 'hash' && /:r:/.test(key) ? Number(await redis.sendCommand(['HSTRLEN', key, 'd'])) : -1;
      return { key, type, bytes: Number(bytes ?? 0), enc: String(enc), fields, value };
    }));
    for (const f of facts) {
      const shape = shapeOf(f.key);
      const g = groups.get(shape) ?? { type: f.type, keys: 0, bytes: 0, enc: new Map<string, number>(), fields: 0, value: 0, values: 0 };
      g.keys++;
      g.bytes += f.bytes;
      g.enc.set(f.enc, (g.enc.get(f.enc) ?? 0) + 1);
      g.fields += f.fields;
      if (f.value >= 0) {
        g.value += f.value;
        g.values++;
      }
      groups.set(shape, g);
    }
  }
  return [...groups].map(([shape, g]) => ({
    shape,
    type: g.type,
    keys: g.keys,
    bytes: g.bytes,
    encodings: [...g.enc].map(([e, n]) => `${e} ${n}`).join(', '),
    ...(g.type === 'hash' ? { fields: Number((g.fields / g.keys).toFixed(1)) } : {}),
    ...(g.values > 0 ? { valueBytes: Math.round(g.value / g.values) } : {}),
  })).sort((a, b) => b.bytes - a.bytes);
}
