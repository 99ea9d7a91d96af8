/**
 * Key layout. Every key of a tenant starts with the hash tag `{t:<tenant>}`, so all keys one commit
 * touches hash to one slot: multi-key scripts stay legal, and the same layout runs on Redis Cluster.
 *   {t:T}:r:<kind>:<id>              hash  v = version, d = JSON value
 *   {t:T}:all:<kind>                 zset  every id of the kind (score = id)
 *   {t:T}:u:<kind>:<index>           hash  unique key -> id
 *   {t:T}:m:<kind>:<index>:<key>     zset  ids under one multi-index key
 *   {t:T}:seq                        hash  kind -> last id handed out
 *   {t:T}:fx                         stream of effects, consumer group EFFECTS_GROUP
 *   {t:T}:done:<dedupe>              string, marks a handled event (TTL 7 days)
 *   {t:T}:poll:at                    zset  target id -> last poll time (write-behind)
 *   {t:T}:poll:addr                  hash  target id -> last poll address
 *   {t:T}:c:<key>                    hash  counter fields (Commit.counters), e.g. a rollout group's action counts
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
export const allKey = (tag: string, kind: string): string => `${tag}:all:${kind}`;
export const uniqueKey = (tag: string, kind: string, index: string): string => `${tag}:u:${kind}:${index}`;
export const multiKey = (tag: string, kind: string, index: string, key: string): string => `${tag}:m:${kind}:${index}:${key}`;
export const seqKey = (tag: string): string => `${tag}:seq`;
export const effectsKey = (tag: string): string => `${tag}:fx`;
export const doneKey = (tag: string, dedupe: string): string => `${tag}:done:${dedupe}`;
export const pollAtKey = (tag: string): string => `${tag}:poll:at`;
export const pollAddrKey = (tag: string): string => `${tag}:poll:addr`;
export const counterKey = (tag: string, key: string): string => `${tag}:c:${key}`;
export const leaseKey = (name: string): string => `{lease:${tagSafe(name)}}`;

/** A score as Redis reads it: infinities are spelled out. */
export function scoreArg(n: number): string {
  if (n === Infinity) return '+inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}
