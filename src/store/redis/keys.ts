/**
 * Key layout. Every key of a tenant starts with the hash tag `{t:<tenant>}`, so all keys one commit
 * touches hash to one slot: multi-key scripts stay legal, and the same layout runs on Redis Cluster.
 *   {t:T}:r:<kind>:<id>              hash  v = version, d = JSON value
 *   {t:T}:p:<kind>:<n>               hash  v<id>, d<id> of a packed kind's records (KindSchema.packed) with
 *                                    ids n * PACK .. n * PACK + PACK - 1 (recordPlace)
 *   {t:T}:all:<kind>                 zset  every id of the kind (score = id); none for an unlisted kind (KindSchema.unlisted)
 *   {t:T}:u:<kind>:<index>:<bucket>  hash  unique key -> id, for the keys of one bucket (uniqueBucket)
 *   {t:T}:m:<kind>:<index>:<key>     zset  ids under one multi-index key
 *   {t:T}:seq                        hash  kind -> last id handed out
 *   {t:T}:fx                         stream of effects, consumer group EFFECTS_GROUP
 *   {t:T}:journal                    stream of journal entries (Commit.journal), capped at about JOURNAL_LENGTH
 *   {t:T}:done:<dedupe>              string, marks a handled event (TTL 7 days)
 *   {t:T}:poll:at                    zset  target id -> last poll time (write-behind)
 *   {t:T}:poll:addr                  hash  target id -> last poll address
 *   {t:T}:c:<key>                    hash  counter fields (Commit.counters), e.g. a rollout group's action counts
 *   {layout:<change>}                string, set once a layout change was applied to the whole keyspace (migrate.ts)
 *   {lease:<name>}                   string, owner of a lease (TTL); each lease in a slot of its own, so
 *                                    leases spread over a cluster's nodes and one node's failover stops
 *                                    only the work whose lease it held
 * Kind and index names contain no ':' (checked), so only the last segment may contain one.
 * No command names keys of two hash tags: on a cluster that is a CROSSSLOT error.
 */

export const EFFECTS_GROUP = 'peregrine';

/** `{` and `}` in a tenant would move the hash tag; `%` is escaped so the encoding stays one-to-one. */
const TAG_UNSAFE = /[{}%]/;
const TAG_UNSAFE_ALL = /[{}%]/g;

function tagSafe(s: string): string {
  return TAG_UNSAFE.test(s) ? s.replace(TAG_UNSAFE_ALL, (c) => `%${c.charCodeAt(0).toString(16)}`) : s;
}

export function tenantTag(tenant: string): string {
  return `{t:${tagSafe(tenant)}}`;
}

export const recordKey = (tag: string, kind: string, id: number | string): string => `${tag}:r:${kind}:${id}`;
/**
 * Records of a packed kind per hash: one key, object and listpack header for 32 records instead of
 * one each (about 100 bytes per record; 64 fields stay below hash-max-listpack-entries, 128).
 * Part of the stored layout: never change it.
 */
export const PACK = 32;

/** Where a record is: its hash and the fields of its version and its JSON. */
export interface RecordPlace {
  readonly key: string;
  readonly v: string;
  readonly d: string;
}

/** A record's place: its own hash (`v`, `d`), or for a packed kind the hash of its PACK ids (`v<id>`, `d<id>`). */
export function recordPlace(tag: string, kind: string, id: number, packed: boolean): RecordPlace {
  return packed
    ? { key: `${tag}:p:${kind}:${Math.floor(id / PACK)}`, v: `v${id}`, d: `d${id}` }
    : { key: recordKey(tag, kind, id), v: 'v', d: 'd' };
}

export const allKey = (tag: string, kind: string): string => `${tag}:all:${kind}`;
/** The hash holding `key` of a unique index: one of UNIQUE_BUCKETS (see uniqueBucket). */
export const uniqueKey = (tag: string, kind: string, index: string, key: string): string =>
  `${tag}:u:${kind}:${index}:${uniqueBucket(key)}`;
/** The hash of a whole unique index before the buckets (moved into them at open, migrate.ts). */
export const legacyUniqueKey = (tag: string, kind: string, index: string): string => `${tag}:u:${kind}:${index}`;
export const multiKey = (tag: string, kind: string, index: string, key: string): string => `${tag}:m:${kind}:${index}:${key}`;
export const seqKey = (tag: string): string => `${tag}:seq`;
export const effectsKey = (tag: string): string => `${tag}:fx`;
export const journalKey = (tag: string): string => `${tag}:journal`;
export const doneKey = (tag: string, dedupe: string): string => `${tag}:done:${dedupe}`;
export const pollAtKey = (tag: string): string => `${tag}:poll:at`;
export const pollAddrKey = (tag: string): string => `${tag}:poll:addr`;
export const counterKey = (tag: string, key: string): string => `${tag}:c:${key}`;
export const leaseKey = (name: string): string => `{lease:${tagSafe(name)}}`;
export const layoutKey = (change: string): string => `{layout:${change}}`;

/**
 * Each unique index is spread over this many hashes, because Redis invalidates tracked reads per key:
 * a claim or release drops the cached lookups of one bucket (1/4096 of a tenant's targets), not of
 * all of them. Buckets stay in Redis's compact listpack encoding up to hash-max-listpack-entries
 * (default 512) keys each, so up to ~1.5 million keys per index, where one big hash would be a hash
 * table: measured on Redis 7.0, 100,000 controller ids take 27 bytes each in buckets, 67 in one hash.
 * Part of the stored layout: never change it.
 */
export const UNIQUE_BUCKETS = 4096;

/**
 * The bucket of a unique key: FNV-1a (32 bit) over the key's UTF-16 code units, each code unit
 * xored in whole (not byte by byte), modulo UNIQUE_BUCKETS. A lone surrogate counts as U+FFFD, the
 * character it becomes in the UTF-8 Redis stores: keys Redis sees as one field share one bucket.
 * Part of the stored layout: never change it.
 */
export function uniqueBucket(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    let c = key.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = key.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        h = Math.imul(h ^ c, 0x01000193);
        c = next;
        i++;
      } else {
        c = 0xfffd;
      }
    }
    h = Math.imul(h ^ c, 0x01000193);
  }
  return (h >>> 0) % UNIQUE_BUCKETS;
}

/** A score as Redis reads it: infinities are spelled out. */
export function scoreArg(n: number): string {
  if (n === Infinity) return '+inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}
