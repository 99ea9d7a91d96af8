import { StoreUnavailableError } from '../port.js';
import type { EffectMessage, QueuedEffect, ReadEffectsOptions, Tenant } from '../port.js';
import type { Guard, RedisCommands } from './connection.js';
import { EFFECTS_GROUP, effectsKey, tenantTag } from './keys.js';

/** Ids per ACK script call: Lua's unpack() has a stack limit of a few thousand values. */
const ACK_CHUNK = 1000;

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
 * committed by other instances are picked up by their own dispatchers, or by this one's next read.
 * A blocking XREADGROUP over all tenants' streams would name keys of many slots, which a cluster
 * refuses, and per-slot blocking reads would need a connection per tenant.
 */
export class RedisEffects {
  readonly #redis: RedisCommands;
  readonly #guard: Guard;
  readonly #waiters = new Set<Waiter>();
  /** Commits with effects so far (see read). */
  #commits = 0;
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
    for (const w of this.#waiters) if (w.tenants.has(tenant)) w.wake();
  }

  /** The connection failed: waiting reads read again now, and fail if Redis is gone. */
  connectionFailed(): void {
    for (const w of this.#waiters) w.wake();
  }

  /**
   * One script per tenant, in turn, until `count` effects are taken. A tenant whose slot cannot be
   * served (its cluster node is down) does not hold up the others; only when no tenant could be read
   * does the read fail.
   */
  async #take(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const out: QueuedEffect[] = [];
    let failure: StoreUnavailableError | undefined;
    let reached = 0;
    for (const tenant of tenants) {
      if (out.length >= options.count) break;
      let reply: unknown;
      try {
        reply = await this.#guard(
          this.#redis.peregrineTake(
            [effectsKey(tenantTag(tenant))],
            [EFFECTS_GROUP, options.consumer, String(options.reclaimIdleMs), String(options.count - out.length)],
          ),
        );
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        failure ??= err;
        continue;
      }
      reached++;
      for (const entry of reply as unknown[]) out.push(toQueued(tenant, entry));
    }
    if (reached === 0 && failure !== undefined) throw failure;
    return out;
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
