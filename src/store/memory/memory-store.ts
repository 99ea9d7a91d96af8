import type {
  CachedReads, Commit, CommitResult, EffectMessage, IdPage, JournalRead, Page, PollRecord, QueuedEffect, ReadEffectsOptions, Schema, Store,
  Stored, Tenant,
} from '../port.js';
import { checkCount, checkKind, checkLease, checkPage, checkPollRecord, checkRange, checkReadOptions, checkTenant } from '../checks.js';
import { checkListed } from '../indexing.js';
import { DEDUPE_TTL_MS, planCommit } from '../plan.js';
import { checkJournalRead } from '../journal.js';
import { EffectsQueue } from './effects-queue.js';
import { MemoryJournal } from './journal.js';
import { freezeJson } from './freeze-json.js';
import { PollTable } from './poll-table.js';
import type { SortedIds } from './sorted-ids.js';
import { TenantState } from './tenant-state.js';

const EMPTY_PAGE: IdPage = Object.freeze({ ids: Object.freeze([]), total: 0 });

/**
 * The embedded store: everything in Maps of one process, no durability. It keeps the Redis adapter's
 * semantics (see port.ts) so the contract suite runs unchanged on both. A commit is synchronous from
 * its first check to its last write, which makes it atomic in a single-threaded process.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  get cached(): CachedReads {
    return this;
  }

  /** CachedReads.changes: every commit that wrote something. */
  get changes(): number {
    return this.#changes;
  }
  readonly #schema: Schema;
  readonly #tenants = new Map<Tenant, TenantState>();
  readonly #effects = new EffectsQueue();
  readonly #journal = new MemoryJournal();
  readonly #leases = new Map<string, { owner: string; expiresAt: number }>();
  /** Updated in place: a large fleet's polls replace no objects (each one would outlive a young-generation GC). */
  readonly #polls = new Map<Tenant, PollTable>();
  #changes = 0;

  constructor(schema: Schema) {
    this.#schema = schema;
  }

  async nextIds(tenant: Tenant, kind: string, count = 1): Promise<number> {
    checkTenant(tenant);
    checkKind(kind);
    checkCount(count);
    const t = this.#tenant(tenant);
    const last = (t.seq.get(kind) ?? 0) + count;
    t.seq.set(kind, last);
    return last - count + 1;
  }

  async get<T>(tenant: Tenant, kind: string, id: number): Promise<Stored<T> | undefined> {
    return this.peekGet<T>(tenant, kind, id);
  }

  /** Memory is its own cache: a peek never misses. */
  peekGet<T>(tenant: Tenant, kind: string, id: number): Stored<T> | undefined {
    return this.#tenants.get(tenant)?.records.get(kind)?.get(id) as Stored<T> | undefined;
  }

  async getMany<T>(tenant: Tenant, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]> {
    const records = this.#tenants.get(tenant)?.records.get(kind);
    return ids.map((id) => records?.get(id) as Stored<T> | undefined);
  }

  async commit(tenant: Tenant, commit: Commit): Promise<CommitResult> {
    checkTenant(tenant);
    const plan = planCommit(this.#schema, commit);
    // copy everything first: a value without a JSON form throws before anything is checked or written
    const values = plan.writes.map((w) => (w.after === null ? null : jsonValue(w.after, `${w.kind} ${w.id}`)));
    const effects = plan.effects.map(({ eventId, effect }) => ({ eventId, effect: jsonValue(effect, `effect ${effect.type}`) as typeof effect }));
    const journal = plan.journal === undefined ? undefined : (freezeJson(JSON.parse(plan.journal)) as readonly EffectMessage[]);
    const t = this.#tenant(tenant);
    const failure = t.verify(plan, Date.now());
    if (failure !== undefined) return failure;
    const versions = t.apply(plan, values);
    this.#changes++;
    if (plan.dedupe !== undefined) t.markDone(plan.dedupe, Date.now(), DEDUPE_TTL_MS);
    this.#effects.push(tenant, effects);
    if (journal !== undefined) this.#journal.append(tenant, journal, Date.now());
    return { ok: true, versions };
  }

  async lookup(tenant: Tenant, kind: string, index: string, key: string): Promise<number | undefined> {
    return this.peekLookup(tenant, kind, index, key);
  }

  peekLookup(tenant: Tenant, kind: string, index: string, key: string): number | undefined {
    return this.#tenants.get(tenant)?.unique(kind, index)?.get(key);
  }

  async lookupMany(tenant: Tenant, kind: string, index: string, keys: readonly string[]): Promise<(number | undefined)[]> {
    const map = this.#tenants.get(tenant)?.unique(kind, index);
    return keys.map((k) => map?.get(k));
  }

  async ids(tenant: Tenant, kind: string, page: Page): Promise<IdPage> {
    checkPage(page);
    checkListed(this.#schema, kind);
    return this.#tenants.get(tenant)?.all.get(kind)?.page(page.offset, page.limit, page.desc === true) ?? EMPTY_PAGE;
  }

  async members(tenant: Tenant, kind: string, index: string, key: string, page: Page): Promise<IdPage> {
    return this.peekMembers(tenant, kind, index, key, page);
  }

  peekMembers(tenant: Tenant, kind: string, index: string, key: string, page: Page): IdPage {
    checkPage(page);
    const ids = this.#multi(tenant, kind, index, key);
    return ids === undefined || ids.size === 0 ? EMPTY_PAGE : ids.page(page.offset, page.limit, page.desc === true);
  }

  async range(tenant: Tenant, kind: string, index: string, key: string, min: number, max: number, page: Page): Promise<IdPage> {
    checkPage(page);
    checkRange(min, max);
    return this.#multi(tenant, kind, index, key)?.range(min, max, page.offset, page.limit, page.desc === true) ?? EMPTY_PAGE;
  }

  async count(tenant: Tenant, kind: string, index?: string, key?: string): Promise<number> {
    if (index === undefined) {
      checkListed(this.#schema, kind);
      return this.#tenants.get(tenant)?.records.get(kind)?.size ?? 0;
    }
    if (key === undefined) throw new TypeError('count by index needs a key');
    return this.#multi(tenant, kind, index, key)?.size ?? 0;
  }

  async counters(tenant: Tenant, keys: readonly string[]): Promise<Record<string, number>[]> {
    const all = this.#tenants.get(tenant)?.counters;
    return keys.map((k) => Object.fromEntries(all?.get(k) ?? []));
  }

  async dropCounters(tenant: Tenant, keys: readonly string[]): Promise<void> {
    const all = this.#tenants.get(tenant)?.counters;
    for (const k of keys) all?.delete(k);
  }

  async readEffects(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    checkReadOptions(tenants, options);
    return this.#effects.read(tenants, options);
  }

  async ackEffects(effects: readonly Pick<QueuedEffect, 'tenant' | 'id'>[]): Promise<void> {
    for (const e of effects) this.#effects.ack(e.tenant, e.id);
  }

  async pendingEffects(tenant: Tenant): Promise<number> {
    return this.#effects.pendingCount(tenant);
  }

  async readJournal(tenant: Tenant, after: string | undefined, count: number): Promise<JournalRead> {
    checkJournalRead(tenant, after, count);
    return this.#journal.read(tenant, after, count);
  }

  async recordPolls(tenant: Tenant, polls: readonly (PollRecord & { readonly id: number })[]): Promise<void> {
    checkTenant(tenant);
    for (const p of polls) checkPollRecord(p);
    let table = this.#polls.get(tenant);
    if (table === undefined) this.#polls.set(tenant, (table = new PollTable()));
    for (const p of polls) table.record(p.id, p.at, p.address);
  }

  async getPolls(tenant: Tenant, ids: readonly number[]): Promise<(PollRecord | undefined)[]> {
    const table = this.#polls.get(tenant);
    return ids.map((id) => table?.get(id));
  }

  async pollRange(tenant: Tenant, min: number, max: number, page: Page): Promise<IdPage> {
    checkPage(page);
    const hits = this.#polls.get(tenant)?.within(min, max) ?? [];
    hits.sort(([ia, a], [ib, b]) => a - b || String(ia).localeCompare(String(ib)));
    if (page.desc) hits.reverse();
    return { ids: hits.slice(page.offset, page.offset + page.limit).map(([id]) => id), total: hits.length };
  }

  async forgetPolls(tenant: Tenant, ids: readonly number[]): Promise<void> {
    const table = this.#polls.get(tenant);
    for (const id of ids) table?.delete(id);
  }

  async dropTenant(tenant: Tenant): Promise<void> {
    checkTenant(tenant);
    this.#tenants.delete(tenant);
    this.#effects.drop(tenant);
    this.#journal.drop(tenant);
    this.#polls.delete(tenant);
    this.#changes++;
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkLease(name, owner, ttlMs);
    const now = Date.now();
    const held = this.#leases.get(name);
    if (held !== undefined && held.owner !== owner && held.expiresAt > now) return false;
    this.#leases.set(name, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    if (this.#leases.get(name)?.owner === owner) this.#leases.delete(name);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#effects.close();
  }

  #tenant(tenant: Tenant): TenantState {
    let t = this.#tenants.get(tenant);
    if (t === undefined) this.#tenants.set(tenant, (t = new TenantState()));
    return t;
  }

  #multi(tenant: Tenant, kind: string, index: string, key: string): SortedIds | undefined {
    return this.#tenants.get(tenant)?.multi(kind, index, key);
  }
}

function jsonValue(value: unknown, what: string): unknown {
  const copy = freezeJson(value);
  if (copy === undefined) throw new TypeError(`${what}: value has no JSON form`);
  return copy;
}
