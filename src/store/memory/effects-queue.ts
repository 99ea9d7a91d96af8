import type { EffectMessage, QueuedEffect, ReadEffectsOptions, Tenant } from '../port.js';

interface Entry {
  readonly id: string;
  readonly eventId: string;
  readonly effect: EffectMessage;
  deliveredAt: number;
  deliveries: number;
}

interface TenantQueue {
  seq: number;
  /** Committed, never delivered; insertion order is commit order. */
  readonly fresh: Map<string, Entry>;
  /** Delivered and not acked, in first-delivery order (like a consumer group's pending list). */
  readonly pending: Map<string, Entry>;
}

/**
 * The in-process twin of the per-tenant Redis streams with one consumer group: effects are delivered
 * once, stay pending until acked, and are handed out again (deliveries + 1) when left unacked longer
 * than `reclaimIdleMs`. Readers with `blockMs` wait until an effect of one of their tenants arrives.
 */
export class EffectsQueue {
  readonly #queues = new Map<Tenant, TenantQueue>();
  readonly #waiters = new Map<Tenant, Set<() => void>>();
  #closed = false;

  push(tenant: Tenant, effects: readonly { readonly eventId: string; readonly effect: EffectMessage }[]): void {
    if (effects.length === 0) return;
    let q = this.#queues.get(tenant);
    if (q === undefined) {
      q = { seq: 0, fresh: new Map(), pending: new Map() };
      this.#queues.set(tenant, q);
    }
    for (const { eventId, effect } of effects) {
      const id = `${++q.seq}-0`;
      q.fresh.set(id, { id, eventId, effect, deliveredAt: 0, deliveries: 0 });
    }
    const waiters = this.#waiters.get(tenant);
    if (waiters !== undefined) {
      this.#waiters.delete(tenant);
      for (const wake of waiters) wake();
    }
  }

  async read(tenants: readonly Tenant[], options: ReadEffectsOptions): Promise<QueuedEffect[]> {
    const out: QueuedEffect[] = [];
    // per tenant: its reclaimable effects, then its new ones (as the Redis adapter's script does)
    for (const tenant of tenants) {
      this.#reclaim(tenant, options, out);
      this.#takeFresh([tenant], options.count, out);
    }
    if (out.length > 0 || options.blockMs <= 0) return out;
    const deadline = Date.now() + options.blockMs;
    for (let left = options.blockMs; left > 0 && !this.#closed; left = deadline - Date.now()) {
      await this.#wait(tenants, left);
      this.#takeFresh(tenants, options.count, out);
      if (out.length > 0) break;
    }
    return out;
  }

  ack(tenant: Tenant, id: string): void {
    const q = this.#queues.get(tenant);
    if (q !== undefined && !q.pending.delete(id)) q.fresh.delete(id);
  }

  /** Forgets the tenant's effects, delivered or not. */
  drop(tenant: Tenant): void {
    this.#queues.delete(tenant);
  }

  pendingCount(tenant: Tenant): number {
    const q = this.#queues.get(tenant);
    return q === undefined ? 0 : q.pending.size + q.fresh.size;
  }

  close(): void {
    this.#closed = true;
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
    this.#waiters.clear();
  }

  #reclaim(tenant: Tenant, options: ReadEffectsOptions, out: QueuedEffect[]): void {
    const q = this.#queues.get(tenant);
    if (q === undefined) return;
    const now = Date.now();
    for (const e of q.pending.values()) {
      if (out.length >= options.count) return;
      if (now - e.deliveredAt < options.reclaimIdleMs) continue;
      e.deliveredAt = now;
      e.deliveries++;
      out.push(delivered(tenant, e));
    }
  }

  /** Moves new effects to pending until `out` holds `count`. */
  #takeFresh(tenants: readonly Tenant[], count: number, out: QueuedEffect[]): void {
    const now = Date.now();
    for (const tenant of tenants) {
      const q = this.#queues.get(tenant);
      if (q === undefined) continue;
      for (const e of q.fresh.values()) {
        if (out.length >= count) return;
        q.fresh.delete(e.id);
        e.deliveredAt = now;
        e.deliveries = 1;
        q.pending.set(e.id, e);
        out.push(delivered(tenant, e));
      }
    }
  }

  #wait(tenants: readonly Tenant[], ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        for (const t of tenants) this.#waiters.get(t)?.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      for (const t of tenants) {
        let set = this.#waiters.get(t);
        if (set === undefined) this.#waiters.set(t, (set = new Set()));
        set.add(wake);
      }
    });
  }
}

function delivered(tenant: Tenant, e: Entry): QueuedEffect {
  return { id: e.id, tenant, eventId: e.eventId, effect: e.effect, deliveries: e.deliveries };
}
