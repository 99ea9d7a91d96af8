import { StoreUnavailableError } from '../port.js';
import type { EffectMessage, QueuedEffect, ReadEffectsOptions, Tenant } from '../port.js';
import type { Guard, RedisCommands } from './connection.js';
import { EFFECTS_GROUP, effectsKey, tenantTag } from './keys.js';

/** Ids per ACK script call: Lua's unpack() has a stack limit of a few thousand values. */
const ACK_CHUNK = 1000;

/**
 * How long a tenant whose stream was found empty goes unread (ms), unless this store commits an effect
 * for it: how late effects an instance committed and died before handling are seen. Never more than a
 * third of reclaimIdleMs, so an effect a dead consumer took is reclaimed about as soon as it may be.
 */
const QUIET_LOOK_MS = 5000;

/** A tenant's stream found empty: when, and this store's commits for it then. */
interface Quiet {
  readonly at: number;
  readonly commits: number;
}

interface Waiter {
  readonly tenants: ReadonlySet<Tenant>;
  wake(): void;
}

/**
 * The effects queue on Redis Streams: one stream per tenant (in the tenant's slot), one consumer
 * group for all workers. A read runs one script per tenant: it reclaims entries left unacked longer
 * than reclaimIdleMs and takes new ones. No command ever names two tenants' streams, so the queue
 * works the same on one Redis and on a cluster.
 *
 * When every stream is empty, a read waits in process, not in Redis: it wakes when this store commits
 * an effect of one of its tenants (the committing instance is alive and handles its own effects at
 * once), when the connection reports an error, or after blockMs, when it reads again. Effects
 * committed by other instances are picked up by their own dispatchers, or by this one's next look.
 * A blocking XREADGROUP over all tenants' streams would name keys of many slots, which a cluster
 * refuses, and per-slot blocking reads would need a connection per tenant.
 *
 * A tenant whose stream a read found empty, and that this store committed no effect for since, is not
 * read again until QUIET_LOOK_MS later: its stream can only have gained entries another instance
 * committed, which that instance handles, or left behind by one that died (reclaimed after reclaimIdleMs
 * anyway). That look is one XLEN (acking deletes an entry, so an empty stream has nothing to take or
 * reclaim), sent for all such tenants at once (one round trip); only a tenant with entries runs the script.
 * An idle tenant costs one command per QUIET_LOOK_MS instead of three per blockMs.
 */
export class RedisEffects {
  readonly #redis: RedisCommands;
  readonly #guard: Guard;
  readonly #waiters = new Set<Waiter>();
  /** Commits with effects so far (see read). */
  #commits = 0;
  /** Per tenant, commits with effects so far (a tenant that had one since its stream was found empty is read again). */
  readonly #commitsOf = new Map<Tenant, number>();
  readonly #quiet = new Map<Tenant, Quiet>();
  #closed = false;

  constructor(redis: RedisCommands, guard: Guard) {
    this.#redis = redis;
    this.#guard = guard;
  }

  async read(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const commits = this.#commits;
    const out = await this.#take(tenants, options);
    if (out.length > 0 || options.blockMs <= 0 || this.#closed) return out;
    // a commit while the scripts ran may have come after its tenant's script: read again rather than wait
    if (this.#commits === commits && !(await this.#wait(tenants, options.blockMs))) return out;
    return this.#take(tenants, options);
  }

  /** An effect of `tenant` was committed through this store: wake reads waiting for it. */
  committed(tenant: Tenant): void {
    this.#commits++;
    this.#commitsOf.set(tenant, (this.#commitsOf.get(tenant) ?? 0) + 1);
    for (const w of this.#waiters) if (w.tenants.has(tenant)) w.wake();
  }

  /** The connection failed: waiting reads read again now, and fail if Redis is gone. */
  connectionFailed(): void {
    this.#quiet.clear(); // a commit whose answer was lost may have queued effects: every stream is read again
    for (const w of this.#waiters) w.wake();
  }

  /**
   * One script per tenant, in turn, until `count` effects are taken; a quiet tenant is skipped, or looked at
   * with XLEN first once its look is due (see the class). A tenant whose slot cannot be served (its cluster
   * node is down) does not hold up the others; only when no tenant could be read does the read fail.
   */
  async #take(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const out: QueuedEffect[] = [];
    let failure: StoreUnavailableError | undefined;
    let reached = 0;
    const now = Date.now();
    const lookMs = Math.min(QUIET_LOOK_MS, options.reclaimIdleMs / 3);
    const commitsBefore = new Map(tenants.map((t) => [t, this.#commitsOf.get(t) ?? 0]));
    const quietNow = (t: Tenant): Quiet | undefined => {
      const q = this.#quiet.get(t);
      return q !== undefined && q.commits === commitsBefore.get(t) ? q : undefined;
    };
    const due = tenants.filter((t) => {
      const q = quietNow(t);
      return q === undefined || now < q.at || now - q.at >= lookMs;
    });
    // the due quiet tenants' streams, all in one round trip: the script only where one has entries (-1: not reached)
    const length = async (t: Tenant): Promise<number | undefined> => {
      if (quietNow(t) === undefined) return undefined;
      try {
        return await this.#guard(this.#redis.xLen(effectsKey(tenantTag(t))));
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        failure ??= err;
        return -1;
      }
    };
    const lengths = await Promise.all(due.map(length));
    for (const [i, tenant] of due.entries()) {
      if (out.length >= options.count) break;
      const length = lengths[i];
      if (length === -1) continue;
      if (length === 0) {
        reached++;
        this.#markQuiet(tenant, now, commitsBefore);
        continue;
      }
      let reply: unknown[];
      try {
        reply = (await this.#guard(
          this.#redis.peregrineTake(
            [effectsKey(tenantTag(tenant))],
            [EFFECTS_GROUP, options.consumer, String(options.reclaimIdleMs), String(options.count - out.length)],
          ),
        )) as unknown[];
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        failure ??= err;
        continue;
      }
      reached++;
      if (reply.length === 0) this.#markQuiet(tenant, now, commitsBefore);
      else this.#quiet.delete(tenant);
      for (const entry of reply) out.push(toQueued(tenant, entry));
    }
    if (reached === 0 && failure !== undefined && due.length > 0) throw failure;
    if (this.#quiet.size > tenants.length || this.#commitsOf.size > tenants.length) this.#forgetGone(tenants);
    return out;
  }

  /** The tenant's stream was found empty, unless this store committed an effect for it while it was read. */
  #markQuiet(tenant: Tenant, now: number, commitsBefore: ReadonlyMap<Tenant, number>): void {
    const commits = commitsBefore.get(tenant) ?? 0;
    if ((this.#commitsOf.get(tenant) ?? 0) === commits) this.#quiet.set(tenant, { at: now, commits });
  }

  /** Tenants this store's reads no longer name (deleted): their entries go (a commit for one counts again from 0, and it is not quiet). */
  #forgetGone(tenants: readonly Tenant[]): void {
    const listed = new Set(tenants);
    for (const t of this.#quiet.keys()) if (!listed.has(t)) this.#quiet.delete(t);
    for (const t of this.#commitsOf.keys()) if (!listed.has(t)) this.#commitsOf.delete(t);
  }

  /** Resolves true when woken before `ms`, false on timeout or close. */
  #wait(tenants: readonly Tenant[], ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tenants: new Set(tenants),
        wake: () => done(true),
      };
      const timer = setTimeout(() => done(false), ms);
      const done = (woken: boolean): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(woken && !this.#closed);
      };
      this.#waiters.add(waiter);
    });
  }

  async ack(effects: readonly Pick<QueuedEffect, 'tenant' | 'id'>[]): Promise<void> {
    const byTenant = new Map<Tenant, string[]>();
    for (const e of effects) {
      let ids = byTenant.get(e.tenant);
      if (ids === undefined) byTenant.set(e.tenant, (ids = []));
      ids.push(e.id);
    }
    const calls: Promise<unknown>[] = [];
    for (const [tenant, ids] of byTenant) {
      const key = effectsKey(tenantTag(tenant));
      for (let i = 0; i < ids.length; i += ACK_CHUNK) {
        calls.push(this.#redis.peregrineAck([key], [EFFECTS_GROUP, ...ids.slice(i, i + ACK_CHUNK)]));
      }
    }
    await this.#guard(Promise.all(calls));
  }

  /** Entries not yet acked, delivered or not: acking deletes an entry, so this is the stream length. */
  async pending(tenant: Tenant): Promise<number> {
    return this.#guard(this.#redis.xLen(effectsKey(tenantTag(tenant))));
  }

  close(): void {
    this.#closed = true;
    for (const w of this.#waiters) w.wake(); // ends waiting reads at once
  }
}

function toQueued(tenant: Tenant, raw: unknown): QueuedEffect {
  const [id, fields, deliveries] = raw as [string, unknown[], number];
  let eventId = '';
  let payload = '';
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'e') eventId = String(fields[i + 1]);
    else if (fields[i] === 'p') payload = String(fields[i + 1]);
  }
  return { id: String(id), tenant, eventId, effect: JSON.parse(payload) as EffectMessage, deliveries: Number(deliveries) };
}
