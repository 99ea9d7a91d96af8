import { MISS, StoreUnavailableError, type Miss } from '../port.js';
import type {
  CachedReads, Commit, CommitResult, EffectMessage, IdPage, JournalEntry, JournalRead, Page, PollRecord, QueuedEffect, ReadEffectsOptions,
  Schema, Store, Stored, Tenant,
} from '../port.js';
import { checkCount, checkKind, checkLease, checkPage, checkPollRecord, checkRange, checkReadOptions, checkTenant } from '../checks.js';
import { checkJournalRead, journalGap } from '../journal.js';
import { checkListed, isPacked } from '../indexing.js';
import { planCommit } from '../plan.js';
import { commitCall, commitResult } from './commit.js';
import { deadlineGuard, withDeadline } from './connection.js';
import type { Guard, RedisCommands, RedisConnection } from './connection.js';
import { RedisEffects } from './effects-queue.js';
import { allKey, counterKey, journalKey, leaseKey, multiKey, pollAddrKey, pollAtKey, recordPlace, scoreArg, seqKey, tenantTag, uniqueKey } from './keys.js';
import { pollRecordArgs } from './poll-records.js';

export interface RedisStoreTimeouts {
  /** ping() fails when Redis does not answer within this (ms). */
  readonly pingTimeoutMs: number;
  /** Any other command fails when Redis does not answer within this (ms; 0: wait forever). */
  readonly commandTimeoutMs: number;
  /**
   * A commit succeeds only once this many replicas have it, or as many as are online when fewer are
   * (WAIT, within commandTimeoutMs); 0: do not wait.
   */
  readonly waitReplicas: number;
}

/**
 * The production store on Redis (see keys.ts for the layout). Every command failure caused by the
 * connection becomes StoreUnavailableError (HTTP 503); errors Redis reports for a command, such as a
 * script error, are bugs and pass through unchanged.
 */
/** The client-side cache the store reads through, told of this process's own writes. */
interface LocalCache {
  readonly reads: CachedReads;
  /** Drops what the keys hold (see RedisCachedReads.written). */
  written(redisKeys: readonly string[]): void;
  close(): Promise<void>;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly #cached: LocalCache | undefined;
  /** Reads served from the tracked client-side cache (or plain reads when the cache is off). */
  get cached(): CachedReads {
    return this.#cached?.reads ?? this;
  }
  readonly #connection: RedisConnection;
  /** Keyed commands: on a cluster each goes to its key's slot, and no command names two slots. */
  readonly #client: RedisCommands;
  readonly #schema: Schema;
  readonly #effects: RedisEffects;
  readonly #timeouts: RedisStoreTimeouts;
  readonly #guard: Guard;

  constructor(
    connection: RedisConnection, schema: Schema, timeouts: RedisStoreTimeouts,
    cached?: LocalCache,
  ) {
    this.#cached = cached;
    this.#connection = connection;
    this.#client = connection.commands;
    this.#schema = schema;
    this.#timeouts = timeouts;
    this.#guard = deadlineGuard(timeouts.commandTimeoutMs);
    this.#effects = new RedisEffects(this.#client, this.#guard);
  }

  /** For the connection's error listener: reads waiting for effects try Redis again now. */
  connectionFailed(): void {
    this.#effects.connectionFailed();
  }

  /** Without the client-side cache, every peek misses and the async read goes to Redis. */
  readonly changes = 0;

  peekGet(): Miss {
    return MISS;
  }

  peekLookup(): Miss {
    return MISS;
  }

  peekMembers(): Miss {
    return MISS;
  }

  async nextIds(tenant: Tenant, kind: string, count = 1): Promise<number> {
    checkTenant(tenant);
    checkKind(kind);
    checkCount(count);
    const last = await this.#guard(this.#client.hIncrBy(seqKey(tenantTag(tenant)), kind, count));
    return Number(last) - count + 1;
  }

  async get<T>(tenant: Tenant, kind: string, id: number): Promise<Stored<T> | undefined> {
    const place = recordPlace(tenantTag(tenant), kind, id, isPacked(this.#schema, kind));
    const [v, d] = await this.#guard(this.#client.hmGet(place.key, [place.v, place.d]));
    return toStored<T>(id, v, d);
  }

  /** One HMGET per id, written in one batch (node-redis pipelines commands issued in the same tick). */
  async getMany<T>(tenant: Tenant, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]> {
    const tag = tenantTag(tenant);
    const packed = isPacked(this.#schema, kind);
    const replies = await this.#guard(Promise.all(ids.map((id) => {
      const place = recordPlace(tag, kind, id, packed);
      return this.#client.hmGet(place.key, [place.v, place.d]);
    })));
    return replies.map(([v, d], i) => toStored<T>(ids[i]!, v, d));
  }

  async commit(tenant: Tenant, commit: Commit): Promise<CommitResult> {
    checkTenant(tenant);
    const plan = planCommit(this.#schema, commit);
    const { keys, args } = commitCall(tenantTag(tenant), plan);
    const committing = this.#client.peregrineCommit(keys, args);
    // asked in the same tick, so it travels in one batch with the commit
    const replicas = this.#timeouts.waitReplicas > 0 ? this.#connection.onlineReplicas(keys[0]!) : undefined;
    replicas?.catch(() => {}); // a failed commit reports the failure
    const result = commitResult(await this.#guard(committing), plan);
    if (result.ok) this.#cached?.written(keys);
    if (result.ok && plan.effects.length > 0) this.#effects.committed(tenant);
    // a duplicate may be the retry of a commit whose replication was not confirmed: confirm it now
    if (replicas !== undefined && (result.ok || result.reason === 'duplicate')) await this.#replicated(keys[0]!, await this.#guard(replicas));
    return result;
  }

  async lookup(tenant: Tenant, kind: string, index: string, key: string): Promise<number | undefined> {
    const id = await this.#guard(this.#client.hGet(uniqueKey(tenantTag(tenant), kind, index, key), key));
    return id === null || id === undefined ? undefined : Number(id);
  }

  /** One HMGET per bucket the keys fall in, written in one batch; ids come back in the order of `keys`. */
  async lookupMany(tenant: Tenant, kind: string, index: string, keys: readonly string[]): Promise<(number | undefined)[]> {
    if (keys.length === 0) return [];
    const tag = tenantTag(tenant);
    const buckets = new Map<string, number[]>(); // bucket key -> positions in `keys`
    keys.forEach((key, i) => {
      const hash = uniqueKey(tag, kind, index, key);
      const at = buckets.get(hash);
      if (at === undefined) buckets.set(hash, [i]);
      else at.push(i);
    });
    const groups = [...buckets];
    const replies = await this.#guard(Promise.all(groups.map(([hash, at]) => this.#client.hmGet(hash, at.map((i) => keys[i]!)))));
    const ids = new Array<number | undefined>(keys.length).fill(undefined);
    groups.forEach(([, at], g) => {
      const reply = replies[g]!;
      at.forEach((i, j) => {
        const id = reply[j];
        if (id !== null && id !== undefined) ids[i] = Number(id);
      });
    });
    return ids;
  }

  async ids(tenant: Tenant, kind: string, page: Page): Promise<IdPage> {
    checkPage(page);
    checkListed(this.#schema, kind);
    return this.#rankPage(allKey(tenantTag(tenant), kind), page);
  }

  async members(tenant: Tenant, kind: string, index: string, key: string, page: Page): Promise<IdPage> {
    checkPage(page);
    return this.#rankPage(multiKey(tenantTag(tenant), kind, index, key), page);
  }

  async range(tenant: Tenant, kind: string, index: string, key: string, min: number, max: number, page: Page): Promise<IdPage> {
    checkPage(page);
    checkRange(min, max);
    return this.#scorePage(multiKey(tenantTag(tenant), kind, index, key), min, max, page);
  }

  async count(tenant: Tenant, kind: string, index?: string, key?: string): Promise<number> {
    const tag = tenantTag(tenant);
    if (index !== undefined && key === undefined) throw new TypeError('count by index needs a key');
    if (index === undefined) checkListed(this.#schema, kind);
    const zkey = index === undefined ? allKey(tag, kind) : multiKey(tag, kind, index, key!);
    return Number(await this.#guard(this.#client.zCard(zkey)));
  }

  async counters(tenant: Tenant, keys: readonly string[]): Promise<Record<string, number>[]> {
    const tag = tenantTag(tenant);
    const hashes = await this.#guard(Promise.all(keys.map((k) => this.#client.hGetAll(counterKey(tag, k)))));
    return hashes.map((h) => Object.fromEntries(Object.entries(h as unknown as Record<string, string>).map(([f, v]) => [f, Number(v)])));
  }

  async dropCounters(tenant: Tenant, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const tag = tenantTag(tenant);
    await this.#guard(Promise.all(keys.map((k) => this.#client.unlink(counterKey(tag, k)))));
  }

  async readEffects(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    checkReadOptions(tenants, options);
    return this.#effects.read(tenants, options);
  }

  async ackEffects(effects: readonly Pick<QueuedEffect, 'tenant' | 'id'>[]): Promise<void> {
    return this.#effects.ack(effects);
  }

  async pendingEffects(tenant: Tenant): Promise<number> {
    return this.#effects.pending(tenant);
  }

  async readJournal(tenant: Tenant, after: string | undefined, count: number): Promise<JournalRead> {
    checkJournalRead(tenant, after, count);
    const reply = await this.#guard(this.#client.peregrineJournal([journalKey(tenantTag(tenant))], [after ?? '', String(count)]));
    return journalRead(reply, after);
  }

  async recordPolls(tenant: Tenant, polls: readonly (PollRecord & { readonly id: number })[]): Promise<void> {
    checkTenant(tenant);
    if (polls.length === 0) return;
    for (const p of polls) checkPollRecord(p);
    const tag = tenantTag(tenant);
    await this.#guard(this.#client.peregrineRecordPolls([pollAtKey(tag), pollAddrKey(tag)], pollRecordArgs(polls)));
  }

  async getPolls(tenant: Tenant, ids: readonly number[]): Promise<(PollRecord | undefined)[]> {
    if (ids.length === 0) return [];
    const tag = tenantTag(tenant);
    const members = ids.map(String);
    const [scores, addresses] = await this.#guard(Promise.all([
      this.#client.zmScore(pollAtKey(tag), members),
      this.#client.hmGet(pollAddrKey(tag), members),
    ]));
    return ids.map((_, i) => {
      const at = scores[i];
      return at === null || at === undefined ? undefined : { at: Number(at), address: addresses[i] ?? null };
    });
  }

  async pollRange(tenant: Tenant, min: number, max: number, page: Page): Promise<IdPage> {
    checkPage(page);
    return this.#scorePage(pollAtKey(tenantTag(tenant)), min, max, page);
  }

  async forgetPolls(tenant: Tenant, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const tag = tenantTag(tenant);
    const members = ids.map(String);
    await this.#guard(this.#connection.multi(pollAtKey(tag)).zRem(pollAtKey(tag), members).hDel(pollAddrKey(tag), members).exec());
  }

  /**
   * SCAN for the tenant's hash tag (every master of a cluster; all its keys sit in one slot), UNLINK in
   * batches: one command names keys of one tag only. About 1.5 s per million keys scanned.
   */
  async dropTenant(tenant: Tenant): Promise<void> {
    checkTenant(tenant);
    const pattern = `${tenantTag(tenant).replace(/[*?[\]\\]/g, '\\$&')}:*`;
    for await (const keys of this.#connection.scan(pattern)) {
      for (let i = 0; i < keys.length; i += 1000) await this.#guard(this.#client.unlink(keys.slice(i, i + 1000)));
    }
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkLease(name, owner, ttlMs);
    const won = await this.#guard(this.#client.peregrineAcquireLease([leaseKey(name)], [owner, String(ttlMs)]));
    return Number(won) === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.#guard(this.#client.peregrineReleaseLease([leaseKey(name)], [owner]));
  }

  async ping(): Promise<void> {
    await withDeadline(this.#connection.ping(), this.#timeouts.pingTimeoutMs, 'PING');
  }

  async close(): Promise<void> {
    await this.#cached?.close();
    this.#effects.close();
    await this.#connection.close();
  }

  /**
   * Redis replicates asynchronously: a master that dies right after a commit may take it along, and
   * the replica promoted in its place never had it. With waitReplicas, a commit is acknowledged only
   * once that many replicas have it (or every online replica, when fewer are online: after a
   * failover the new master has none until the failed node returns, and writes go on); otherwise the
   * caller gets StoreUnavailableError (503), the answer for an outcome it cannot know, and retries
   * (compare-and-set and dedupe make that safe).
   */
  async #replicated(key: string, online: number): Promise<void> {
    const replicas = Math.min(this.#timeouts.waitReplicas, online);
    if (replicas <= 0) return;
    const { commandTimeoutMs } = this.#timeouts;
    const timeoutMs = commandTimeoutMs > 0 ? commandTimeoutMs : 0;
    const acked = await this.#guard(this.#connection.waitReplicas(key, replicas, timeoutMs), timeoutMs);
    if (acked < replicas) {
      throw new StoreUnavailableError(`commit confirmed by ${acked} of ${replicas} replica(s) within ${timeoutMs} ms; its outcome is unknown`);
    }
  }

  /** Ids of a sorted set with scores in [min, max], in score order, and how many there are. */
  async #scorePage(zkey: string, min: number, max: number, page: Page): Promise<IdPage> {
    const limit = { LIMIT: { offset: page.offset, count: page.limit } };
    const [ids, total] = await this.#guard(Promise.all([
      page.limit === 0
        ? Promise.resolve([])
        : page.desc === true
          ? this.#client.zRange(zkey, scoreArg(max), scoreArg(min), { BY: 'SCORE', REV: true, ...limit })
          : this.#client.zRange(zkey, scoreArg(min), scoreArg(max), { BY: 'SCORE', ...limit }),
      this.#client.zCount(zkey, scoreArg(min), scoreArg(max)),
    ]));
    return { ids: ids.map(Number), total: Number(total) };
  }

  async #rankPage(zkey: string, page: Page): Promise<IdPage> {
    const from = page.offset;
    if (from === 0 && page.limit >= WHOLE_SET && page.desc !== true) {
      // a read of the whole set (a target's active actions, a group's actions): its length is the total,
      // unless the page is full, which such a limit makes rare; then, and only then, ZCARD
      const ids = await this.#guard(this.#client.zRange(zkey, 0, page.limit - 1));
      const total = ids.length < page.limit ? ids.length : Number(await this.#guard(this.#client.zCard(zkey)));
      return { ids: ids.map(Number), total };
    }
    const [ids, total] = await this.#guard(Promise.all([
      page.limit === 0
        ? Promise.resolve([])
        : this.#client.zRange(zkey, from, from + page.limit - 1, page.desc === true ? { REV: true } : undefined),
      this.#client.zCard(zkey),
    ]));
    return { ids: ids.map(Number), total: Number(total) };
  }
}

/** A page from the start this long reads a whole sorted set: its total needs no ZCARD when it is not full. */
const WHOLE_SET = 1000;

function toStored<T>(id: number, version: unknown, json: unknown): Stored<T> | undefined {
  if (version === null || version === undefined || json === null || json === undefined) return undefined;
  return { id, version: Number(version), value: JSON.parse((json as string | Buffer).toString()) as T };
}

/** The journal script's reply (scripts.ts) as a JournalRead. */
function journalRead(reply: unknown, after: string | undefined): JournalRead {
  const [last, first, dropped, raw] = reply as [string, string, number, [string, string[]][]];
  const entries = raw.map(([id, fields]): JournalEntry => ({ id: String(id), events: JSON.parse(String(fields[1])) as EffectMessage[] }));
  return { entries, last: String(last), gap: journalGap(after, String(first), Number(dropped) === 1) };
}
