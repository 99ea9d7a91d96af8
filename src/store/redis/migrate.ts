import { isListed, isPacked } from '../indexing.js';
import type { Schema } from '../port.js';
import type { Guard, RedisConnection } from './connection.js';
import { layoutKey, recordPlace, uniqueKey } from './keys.js';

/** Set once no unique index of the layout before buckets is left, so later starts skip the SCAN. */
export const UNIQUE_BUCKETS_DONE = layoutKey('unique-buckets');

/** Fields moved per script call: a short script, and few calls for a large index. */
const CHUNK = 1000;

/** `{t:T}:u:<kind>:<index>`: a whole unique index in one hash (kind and index names contain no ':'). */
const LEGACY_UNIQUE = /^(\{t:[^}]*\}):u:([^:]+):([^:]+)$/;

/**
 * Moves unique indexes of the layout before buckets (one hash per index, `{t:T}:u:<kind>:<index>`)
 * into their bucket hashes (keys.ts), then the old hash is gone. Runs at open, before the store serves:
 * SCANs the server (every master of a cluster) for such hashes and moves their fields in chunks, each
 * chunk moved and removed from the old hash in one script. Idempotent and safe to run again after a
 * crash part way. When done it sets UNIQUE_BUCKETS_DONE, and later starts skip it (one GET): the SCAN
 * pass takes about 1.5 s per million keys. Instances of the older version must be stopped first: one
 * still writing the old layout would write keys the new one never reads. Returns how many fields moved.
 */
export async function migrateUniqueBuckets(connection: RedisConnection, guard: Guard): Promise<number> {
  if ((await guard(connection.commands.get(UNIQUE_BUCKETS_DONE))) !== null) return 0;
  const legacy: [hash: string, tag: string, kind: string, index: string][] = [];
  for await (const keys of connection.scan('{t:*}:u:*', 'hash')) {
    for (const key of keys) {
      const m = LEGACY_UNIQUE.exec(key);
      if (m !== null) legacy.push([key, m[1]!, m[2]!, m[3]!]);
    }
  }
  let moved = 0;
  for (const [hash, tag, kind, index] of legacy) {
    moved += await moveIndex(connection, guard, hash, (key) => uniqueKey(tag, kind, index, key));
  }
  await guard(connection.commands.set(UNIQUE_BUCKETS_DONE, new Date().toISOString()));
  return moved;
}

async function moveIndex(connection: RedisConnection, guard: Guard, hash: string, bucketOf: (key: string) => string): Promise<number> {
  const { commands } = connection;
  let moved = 0;
  // a field whose value changed between HSCAN and the script stays behind: the next pass takes it
  for (let pass = 0; pass < 10; pass++) {
    let cursor = '0';
    do {
      const reply = await guard(commands.hScan(hash, cursor, { COUNT: CHUNK }));
      cursor = String(reply.cursor);
      for (let i = 0; i < reply.entries.length; i += CHUNK) {
        const chunk = reply.entries.slice(i, i + CHUNK);
        const keys = [hash, ...chunk.map((e) => bucketOf(String(e.field)))];
        const args = chunk.flatMap((e) => [String(e.field), String(e.value)]);
        moved += Number(await guard(commands.peregrineMoveUnique(keys, args)));
      }
    } while (cursor !== '0');
    if ((await guard(commands.hLen(hash))) === 0) return moved;
  }
  throw new Error(`redis: could not move the unique index ${hash} into buckets (it keeps changing: is an older version still running?)`);
}

/** Set once the keys of earlier layouts that nothing reads are gone (dropUnusedKeys), so later starts skip the SCAN. */
export const UNUSED_KEYS_DONE = layoutKey('unused-keys');

/**
 * Deletes keys earlier versions wrote and this one neither reads nor writes: the `all` set of each
 * unlisted kind (`{t:T}:all:actionstatus`: every status entry of a tenant, KindSchema.unlisted) and the
 * action's `active` index (`{t:T}:m:action:active:true|false`, no longer kept since it follows from the
 * status). Runs at open, before the store serves, like migrateUniqueBuckets: one SCAN of the server
 * (every master of a cluster) for sorted sets, UNLINK of those whose whole name matches (a key of a
 * multi index may end in anything, so a glob alone would not do), then UNUSED_KEYS_DONE is set. Safe to
 * run again. An instance of an older version still running would write them again (harmless: nothing
 * reads them; stop it first as for the buckets). Returns how many keys it deleted.
 */
export async function dropUnusedKeys(connection: RedisConnection, guard: Guard, schema: Schema): Promise<number> {
  if ((await guard(connection.commands.get(UNUSED_KEYS_DONE))) !== null) return 0;
  const unlisted = Object.keys(schema).filter((kind) => !isListed(schema, kind));
  const shapes = [...unlisted.map((kind) => `all:${kind}`), 'm:action:active:true', 'm:action:active:false'];
  const unused = new RegExp(`^\\{t:[^}]*\\}:(?:${shapes.map(escapeRegExp).join('|')})$`);
  let dropped = 0;
  for await (const keys of connection.scan('{t:*}:*', 'zset')) {
    const stale = keys.filter((key) => unused.test(key));
    // one UNLINK per key: on a cluster the keys of one SCAN page lie in many slots
    dropped += (await guard(Promise.all(stale.map((key) => connection.commands.unlink(key))))).reduce((a, b) => a + Number(b), 0);
  }
  await guard(connection.commands.set(UNUSED_KEYS_DONE, new Date().toISOString()));
  return dropped;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Set once no record of a packed kind is left in a hash of its own (packRecords), so later starts skip the SCAN. */
export const PACKED_RECORDS_DONE = layoutKey('packed-records');

/**
 * Moves the records of packed kinds (KindSchema.packed: the action status entries) that earlier versions
 * kept in a hash each (`{t:T}:r:<kind>:<id>`) into their packed hashes (keys.ts recordPlace), deleting
 * the old hashes. Runs at open, before the store serves, like migrateUniqueBuckets: one SCAN of the server
 * (every master of a cluster) for record hashes, each page's records of packed kinds moved with one
 * script call per tenant (one slot), then PACKED_RECORDS_DONE is set. Safe to run again after a crash
 * part way. Instances of an older version must be stopped first: they would go on writing (and reading)
 * the old hashes. Returns how many records moved.
 */
export async function packRecords(connection: RedisConnection, guard: Guard, schema: Schema): Promise<number> {
  if ((await guard(connection.commands.get(PACKED_RECORDS_DONE))) !== null) return 0;
  const packed = Object.keys(schema).filter((kind) => isPacked(schema, kind));
  let moved = 0;
  if (packed.length > 0) {
    const old = new RegExp(`^(\\{t:[^}]*\\}):r:(${packed.map(escapeRegExp).join('|')}):(\\d+)$`);
    for await (const keys of connection.scan('{t:*}:r:*', 'hash')) {
      const calls = new Map<string, { keys: string[]; ids: string[] }>(); // per tenant tag: one slot
      for (const key of keys) {
        const m = old.exec(key);
        if (m === null) continue;
        const call = calls.get(m[1]!) ?? { keys: [], ids: [] };
        call.keys.push(key, recordPlace(m[1]!, m[2]!, Number(m[3]), true).key);
        call.ids.push(m[3]!);
        calls.set(m[1]!, call);
      }
      const replies = await guard(Promise.all([...calls.values()].map((c) => connection.commands.peregrinePackRecords(c.keys, c.ids))));
      moved += replies.reduce((a: number, b) => a + Number(b), 0);
    }
  }
  await guard(connection.commands.set(PACKED_RECORDS_DONE, new Date().toISOString()));
  return moved;
}
