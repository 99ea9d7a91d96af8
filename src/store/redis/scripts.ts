import { defineScript } from 'redis';
import type { CommandParser } from 'redis';

/**
 * The Lua scripts. node-redis sends them with EVALSHA and falls back to EVAL on NOSCRIPT (after a
 * Redis restart), so nothing needs loading up front. Every key a script touches is passed in KEYS.
 */

/**
 * One commit, all or nothing: every check runs before the first write (but the unique claims, each set
 * as it is checked and all taken back when one conflicts), and a script runs without interleaving, so a
 * failed check leaves no trace. Index entries come grouped by key (commit.ts), so
 * a commit of many records moves each sorted set with one ZREM and one ZADD (per GROUP members), and
 * the records it creates are checked absent with one EXISTS (per GROUP keys), not one command each;
 * a create of an id its caller reserved (Write.fresh: a status entry) is not checked. A record has its own
 * hash (fields `v`, `d`) or, of a packed kind, a pair of fields `v<id>`, `d<id>` in its hash (keys.ts recordPlace).
 * KEYS: fx, done, then per write its record, then claims, releases, remove keys, add keys, counters
 *   (one key each), then the journal when there is an entry.
 * ARGV: hasDedupe, dedupeTtlMs, #writes, #claims, #releases, #removeKeys, #addKeys, #effects, #counters,
 *   journal entry json or '', journal length, then
 *   per write (id for a packed record else '', expect or 'fresh', json or '' to delete), per claim (key, id), per release (key, id),
 *   per remove key (n, id * n), per add key (n, (score, id) * n), per effect (eventId, json),
 *   per counter (field, increment).
 * Reply: {'ok', version...} | {'stale-version', writeIndex} | {'unique-conflict', claimIndex} | {'duplicate'}.
 */
const COMMIT = `
local nW, nC, nR, nRk, nAk, nE = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local nK = tonumber(ARGV[9])
local GROUP = 1000
if ARGV[1] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return {'duplicate'} end
local wk, wa = 3, 12
local ck, ca = wk + nW, wa + 3 * nW
local rk, ra = ck + nC, ca + 2 * nC
local mk = rk + nR
local ak = mk + nRk
local kk = ak + nAk
local creates = {}
for i = 0, nW - 1 do
  local expect, packed = tonumber(ARGV[wa + 3 * i + 1]), ARGV[wa + 3 * i]
  if expect == nil then
    -- 'fresh': a create of an id the caller reserved (Write.fresh), which nothing else can hold
  elseif expect == 0 and packed == '' then
    creates[#creates + 1] = i
  elseif expect == 0 then
    if redis.call('HEXISTS', KEYS[wk + i], 'v' .. packed) == 1 then return {'stale-version', i} end
  else
    local current = tonumber(redis.call('HGET', KEYS[wk + i], 'v' .. packed) or '0')
    if current ~= expect then return {'stale-version', i} end
  end
end
for from = 1, #creates, GROUP do
  local to = math.min(from + GROUP - 1, #creates)
  local keys = {}
  for j = from, to do keys[#keys + 1] = KEYS[wk + creates[j]] end
  if redis.call('EXISTS', unpack(keys)) > 0 then
    for j = from, to do
      if redis.call('EXISTS', KEYS[wk + creates[j]]) == 1 then return {'stale-version', creates[j]} end
    end
  end
end
-- a key released by its holder in this commit may be claimed by another record (a swap)
local released = {}
for i = 0, nR - 1 do
  local key, field = KEYS[rk + i], ARGV[ra + 2 * i]
  if redis.call('HGET', key, field) == ARGV[ra + 2 * i + 1] then released[key .. '\\0' .. field] = true end
end
-- a free key is claimed at once (HSETNX: one command, not a check and a write); a later conflict takes those back
local claimed, taken = {}, {}
for i = 0, nC - 1 do
  local key, field, id = KEYS[ck + i], ARGV[ca + 2 * i], ARGV[ca + 2 * i + 1]
  local slot = key .. '\\0' .. field
  local holder = claimed[slot]
  if holder == nil and not released[slot] then
    if redis.call('HSETNX', key, field, id) == 1 then
      taken[#taken + 1] = i
      holder = id
    else
      holder = redis.call('HGET', key, field)
    end
  end
  if holder and holder ~= id then
    for _, j in ipairs(taken) do redis.call('HDEL', KEYS[ck + j], ARGV[ca + 2 * j]) end
    return {'unique-conflict', i}
  end
  claimed[slot] = id
end
for i = 0, nR - 1 do
  local key, field = KEYS[rk + i], ARGV[ra + 2 * i]
  if released[key .. '\\0' .. field] then redis.call('HDEL', key, field) end
end
-- only a key released in this commit is still to be written: every other claim is set or was held by its record
for i = 0, nC - 1 do
  local key, field = KEYS[ck + i], ARGV[ca + 2 * i]
  if released[key .. '\\0' .. field] then redis.call('HSET', key, field, ARGV[ca + 2 * i + 1]) end
end
local at = ra + 2 * nR
for i = 0, nRk - 1 do
  local n = tonumber(ARGV[at])
  for from = at + 1, at + n, GROUP do redis.call('ZREM', KEYS[mk + i], unpack(ARGV, from, math.min(from + GROUP - 1, at + n))) end
  at = at + n + 1
end
for i = 0, nAk - 1 do
  local n = tonumber(ARGV[at])
  for from = at + 1, at + 2 * n, 2 * GROUP do redis.call('ZADD', KEYS[ak + i], unpack(ARGV, from, math.min(from + 2 * GROUP - 1, at + 2 * n))) end
  at = at + 2 * n + 1
end
local out = {'ok'}
for i = 0, nW - 1 do
  local expect, json, packed = tonumber(ARGV[wa + 3 * i + 1]) or 0, ARGV[wa + 3 * i + 2], ARGV[wa + 3 * i]
  if json == '' then
    if packed == '' then redis.call('DEL', KEYS[wk + i]) else redis.call('HDEL', KEYS[wk + i], 'v' .. packed, 'd' .. packed) end
    out[#out + 1] = 0
  else
    redis.call('HSET', KEYS[wk + i], 'v' .. packed, tostring(expect + 1), 'd' .. packed, json)
    out[#out + 1] = expect + 1
  end
end
for i = 0, nE - 1 do redis.call('XADD', KEYS[1], '*', 'e', ARGV[at + 2 * i], 'p', ARGV[at + 2 * i + 1]) end
local ka = at + 2 * nE
for i = 0, nK - 1 do redis.call('HINCRBY', KEYS[kk + i], ARGV[ka + 2 * i], ARGV[ka + 2 * i + 1]) end
if ARGV[10] ~= '' then redis.call('XADD', KEYS[kk + nK], 'MAXLEN', '~', ARGV[11], '*', 'j', ARGV[10]) end
if ARGV[1] == '1' then redis.call('SET', KEYS[2], '1', 'PX', ARGV[2]) end
return out
`;

/**
 * Effects for one consumer from one tenant's stream: first entries other consumers (or this one) left
 * unacked for minIdle ms, with their delivery counts, then new entries up to `count` in all.
 * Creates the consumer group (reading from the start) when it or the stream is missing.
 * KEYS: fx. ARGV: group, consumer, minIdleMs, count. Reply: {{id, {field, value, ...}, deliveries}, ...}.
 */
const TAKE = `
local fx, g, c, count = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[4])
local claimed = redis.pcall('XAUTOCLAIM', fx, g, c, ARGV[3], '0-0', 'COUNT', count)
if type(claimed) == 'table' and claimed.err then
  if not string.find(claimed.err, 'NOGROUP', 1, true) then return claimed end
  redis.call('XGROUP', 'CREATE', fx, g, '0', 'MKSTREAM')
  claimed = redis.call('XAUTOCLAIM', fx, g, c, ARGV[3], '0-0', 'COUNT', count)
end
local out = {}
for _, e in ipairs(claimed[2]) do
  if e then
    local p = redis.call('XPENDING', fx, g, e[1], e[1], 1)
    out[#out + 1] = {e[1], e[2], p[1] and p[1][4] or 1}
  end
end
if #out < count then
  local fresh = redis.call('XREADGROUP', 'GROUP', g, c, 'COUNT', count - #out, 'STREAMS', fx, '>')
  if fresh then
    for _, e in ipairs(fresh[1][2]) do out[#out + 1] = {e[1], e[2], 1} end
  end
end
return out
`;

/**
 * A tenant's journal after an id. KEYS: journal. ARGV: after ('' for none), count.
 * Reply: {last id or '0-0', oldest id held or '0-0', 1 when entries were dropped else 0, {{id, {'j', json}}, ...}}.
 * (Redis 7.0 does not move max-deleted-entry-id when XADD trims, so "dropped" is entries-added > length.)
 */
const JOURNAL = `
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return {'0-0', '0-0', 0, {}} end
local info = redis.call('XINFO', 'STREAM', key)
local last, first, added, length = '0-0', '0-0', 0, 0
for i = 1, #info, 2 do
  local k, v = info[i], info[i + 1]
  if k == 'last-generated-id' then last = v
  elseif k == 'first-entry' and type(v) == 'table' then first = v[1]
  elseif k == 'entries-added' then added = v
  elseif k == 'length' then length = v end
end
local dropped = 0
if added > length then dropped = 1 end
if ARGV[1] == '' then return {last, first, dropped, {}} end
return {last, first, dropped, redis.call('XRANGE', key, '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}
`;

/** KEYS: fx. ARGV: group, id... Acked entries are deleted too, so XLEN counts what is still to do. */
const ACK = `
local ids = {unpack(ARGV, 2)}
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
return redis.call('XDEL', KEYS[1], unpack(ids))
`;

/** KEYS: lease. ARGV: owner, ttlMs. Takes a free lease or renews one the owner holds. */
const ACQUIRE_LEASE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
`;

/** KEYS: lease. ARGV: owner. */
const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Moves fields of a unique index's hash of the old layout into their buckets (migrate.ts), each only
 * when the old hash still holds the value the caller read, and removes them from the old hash in the
 * same step, so a crash between two calls loses nothing and a repeated call moves nothing twice. A
 * bucket that already holds a field keeps its own value (it was written by the new layout).
 * KEYS: old hash, then per field its bucket. ARGV: per field (field, value). Reply: fields moved.
 */
const MOVE_UNIQUE = `
local moved = 0
for i = 2, #KEYS do
  local field, value = ARGV[2 * i - 3], ARGV[2 * i - 2]
  if redis.call('HGET', KEYS[1], field) == value then
    redis.call('HSETNX', KEYS[i], field, value)
    redis.call('HDEL', KEYS[1], field)
    moved = moved + 1
  end
end
return moved
`;

/**
 * Moves records of a packed kind from their own hashes (the layout before packing) into their packed
 * places (migrate.ts, keys.ts recordPlace) and deletes the old hashes in the same step, so a crash
 * between two calls loses nothing and a repeated call moves nothing twice. A place that already holds
 * the record keeps its own (written by the new layout).
 * KEYS: per record its old hash, then its packed hash. ARGV: per record its id. Reply: records moved.
 */
const PACK_RECORDS = `
local moved = 0
for i = 1, #ARGV do
  local old, packed, id = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i]
  local v, d = unpack(redis.call('HMGET', old, 'v', 'd'))
  if v and d then
    if redis.call('HSETNX', packed, 'v' .. id, v) == 1 then redis.call('HSET', packed, 'd' .. id, d) end
    moved = moved + 1
  end
  redis.call('DEL', old)
end
return moved
`;

/**
 * Writes a batch of poll records, packed into two arguments by pollRecordArgs (poll-records.ts): the
 * times as "id score id score ..." (JavaScript number strings, never a space; ZADD parses them), the
 * addresses as "id length address" one after another (length in bytes: an address may hold anything).
 * KEYS: poll times (sorted set), poll addresses (hash). ARGV: times, addresses.
 * Each ZADD and HSET takes at most 2,000 values, well below Lua's unpack() limit of a few thousand.
 */
const RECORD_POLLS = `
local args, n = {}, 0
for id, at in string.gmatch(ARGV[1], '(%S+) (%S+)') do
  args[n + 1] = at
  args[n + 2] = id
  n = n + 2
  if n == 2000 then redis.call('ZADD', KEYS[1], unpack(args, 1, n)) n = 0 end
end
if n > 0 then redis.call('ZADD', KEYS[1], unpack(args, 1, n)) n = 0 end
local packed, pos = ARGV[2], 1
while pos <= #packed do
  local id, length, start = string.match(packed, '^(%d+) (%d+) ()', pos)
  pos = start + tonumber(length)
  args[n + 1] = id
  args[n + 2] = string.sub(packed, start, pos - 1)
  n = n + 2
  if n == 2000 then redis.call('HSET', KEYS[2], unpack(args, 1, n)) n = 0 end
end
if n > 0 then redis.call('HSET', KEYS[2], unpack(args, 1, n)) end
return 1
`;

function script(source: string, readOnly = false) {
  return defineScript({
    SCRIPT: source,
    IS_READ_ONLY: readOnly,
    // one value at a time: spreading a commit of 10,000+ writes into one call overflows the JS stack
    parseCommand(parser: CommandParser, keys: readonly string[], args: readonly (string | Buffer)[]) {
      parser.push(String(keys.length));
      for (const key of keys) parser.pushKey(key);
      for (const arg of args) parser.push(arg);
    },
    transformReply: (reply: unknown): unknown => reply,
  });
}

export const SCRIPTS = {
  peregrineCommit: script(COMMIT),
  peregrineTake: script(TAKE),
  peregrineAck: script(ACK),
  peregrineAcquireLease: script(ACQUIRE_LEASE),
  peregrineReleaseLease: script(RELEASE_LEASE),
  peregrineMoveUnique: script(MOVE_UNIQUE),
  peregrinePackRecords: script(PACK_RECORDS),
  peregrineRecordPolls: script(RECORD_POLLS),
  peregrineJournal: script(JOURNAL, true),
};
