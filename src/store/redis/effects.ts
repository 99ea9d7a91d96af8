import type { EffectMessage, QueuedEffect, ReadEffectsOptions, Tenant } from '../port.js';
import { awaitReady, rethrow } from './connection.js';
import type { Guard, RedisConnection } from './connection.js';
import { EFFECTS_GROUP, effectsKey, tenantTag } from './keys.js';

/** Ids per ACK script call: Lua's unpack() has a stack limit of a few thousand values. */
const ACK_CHUNK = 1000;

/**
 * The effects queue on Redis Streams: one stream per tenant, one consumer group for all workers.
 * A read first reclaims entries left unacked longer than reclaimIdleMs and takes new ones (one script
 * per tenant), and only when all are empty blocks on a dedicated connection per consumer, so a
 * waiting reader never holds up the commands of the shared connection.
 */
export class RedisEffects {
  readonly #client: RedisConnection;
  readonly #guard: Guard;
  readonly #openBlocker: () => RedisConnection;
  readonly #blockers = new Map<string, RedisConnection>();
  #closed = false;

  constructor(client: RedisConnection, guard: Guard, openBlocker: () => RedisConnection) {
    this.#client = client;
    this.#guard = guard;
    this.#openBlocker = openBlocker;
  }

  async read(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const out: QueuedEffect[] = [];
    for (const tenant of tenants) {
      if (out.length >= options.count) break;
      const reply = await this.#guard(
        this.#client.peregrineTake([effectsKey(tenantTag(tenant))], [EFFECTS_GROUP, options.consumer, String(options.reclaimIdleMs), String(options.count - out.length)]),
      );
      for (const entry of reply as unknown[]) out.push(toQueued(tenant, entry));
    }
    if (out.length > 0 || options.blockMs <= 0 || this.#closed) return out;
    return this.#block(tenants, options);
  }

  /**
   * Waits for new entries of any of the tenants. Redis applies COUNT per stream, so a wake-up may
   * return up to `count` entries per tenant; they are all delivered to this consumer, so all are returned.
   */
  async #block(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const byKey = new Map(tenants.map((t) => [effectsKey(tenantTag(t)), t] as const));
    const blocker = await this.#blocker(options.consumer);
    const keys = [...byKey.keys()];
    let reply: unknown;
    try {
      const command = blocker.sendCommand([
        'XREADGROUP', 'GROUP', EFFECTS_GROUP, options.consumer, 'COUNT', String(options.count),
        'BLOCK', String(options.blockMs), 'STREAMS', ...keys, ...keys.map(() => '>'),
      ]);
      reply = await this.#guard(command, options.blockMs);
    } catch (err) {
      if (this.#closed) return [];
      // the group vanished (Redis restarted without persistence): the next read recreates it
      if (err instanceof Error && err.message.startsWith('NOGROUP')) return [];
      return rethrow(err);
    }
    const out: QueuedEffect[] = [];
    if (reply === null || reply === undefined) return out;
    const streams: Iterable<[string, unknown]> = reply instanceof Map ? reply : Object.entries(reply as Record<string, unknown>);
    for (const [key, entries] of streams) {
      const tenant = byKey.get(String(key));
      if (tenant === undefined) continue;
      for (const e of entries as unknown[]) {
        const [id, fields] = e as [string, unknown[]];
        out.push(toQueued(tenant, [id, fields, 1]));
      }
    }
    return out;
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
        calls.push(this.#client.peregrineAck([key], [EFFECTS_GROUP, ...ids.slice(i, i + ACK_CHUNK)]));
      }
    }
    await this.#guard(Promise.all(calls));
  }

  /** Entries not yet acked, delivered or not: acking deletes an entry, so this is the stream length. */
  async pending(tenant: Tenant): Promise<number> {
    return this.#guard(this.#client.xLen(effectsKey(tenantTag(tenant))));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const blocker of this.#blockers.values()) blocker.destroy(); // ends a pending BLOCK at once
    this.#blockers.clear();
  }

  async #blocker(consumer: string): Promise<RedisConnection> {
    let blocker = this.#blockers.get(consumer);
    if (blocker === undefined) {
      blocker = this.#openBlocker();
      this.#blockers.set(consumer, blocker);
      blocker.connect().catch(() => {}); // failures reach the 'error' listener; reconnects go on
    }
    await awaitReady(blocker, 2000);
    return blocker;
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
