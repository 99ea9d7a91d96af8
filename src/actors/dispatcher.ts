import { EventEmitter, once } from 'node:events';
import type { Effect, QueuedEffect, Store, Tenant } from '../store/port.js';
import { StoreUnavailableError } from '../store/port.js';

/** Handles one effect; must be idempotent for `dedupe` (pass it on to the commit it makes). */
export type EffectHandler = (tenant: Tenant, effect: Effect, dedupe: string) => Promise<void>;

/**
 * Handles several effects at once (e.g. publishing them to a broker with one round of confirms);
 * resolves with one flag per effect: true when it was handled (and may be acked).
 */
export type BatchEffectHandler = (effects: readonly BatchedEffect[]) => Promise<readonly boolean[]>;

export interface BatchedEffect {
  readonly tenant: Tenant;
  readonly effect: Effect;
  /** Stable across redeliveries (see effectId). */
  readonly id: string;
}

export interface DispatcherOptions {
  readonly consumer: string;
  readonly tenants: () => readonly Tenant[];
  readonly handlers: Readonly<Record<string, EffectHandler>>;
  /** Effect types handled in groups: all of a read batch's effects of these types go to one call, after the others. */
  readonly batchHandlers?: Readonly<Record<string, BatchEffectHandler>>;
  readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Effects left unacked this long by a consumer (e.g. a crashed process) are handed out again. */
  readonly reclaimIdleMs?: number;
  readonly batch?: number;
  readonly blockMs?: number;
}

/**
 * Consumes the durable effects queue: reads a batch, runs each effect's handler, acks it. An effect
 * whose handler fails is not acked and comes back after `reclaimIdleMs`; handlers dedupe on the
 * effect's id, so redelivery after a crash between commit and dispatch applies it exactly once.
 */
export class EffectDispatcher {
  readonly #store: Store;
  readonly #opts: DispatcherOptions;
  readonly #done = new EventEmitter();
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(store: Store, options: DispatcherOptions) {
    this.#store = store;
    this.#opts = options;
    this.#done.setMaxListeners(0);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  /** Handles whatever is queued now (tests and shutdown). Returns the number handled. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.#once(0);
      total += n;
      if (n === 0) return total;
    }
  }

  /** Resolves when these effects were handled by this process, or after `timeoutMs`. */
  async settle(effectIds: readonly string[], timeoutMs = 2000): Promise<boolean> {
    if (effectIds.length === 0) return true;
    const pending = new Set(effectIds);
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      while (pending.size > 0) {
        const [eid] = (await once(this.#done, 'handled', { signal: ac.signal })) as [string];
        pending.delete(eid);
      }
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async #run(): Promise<void> {
    let backoff = 100;
    while (this.#running) {
      try {
        await this.#once(this.#opts.blockMs ?? 250);
        backoff = 100;
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) this.#opts.log.error({ err }, 'effects dispatcher failed');
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  async #once(blockMs: number): Promise<number> {
    const tenants = this.#opts.tenants();
    if (tenants.length === 0) {
      // nothing to read: wait as a blocking read would, or this loop would starve the event loop
      if (blockMs > 0) await new Promise((r) => setTimeout(r, blockMs));
      return 0;
    }
    const batch = await this.#store.readEffects(tenants, {
      consumer: this.#opts.consumer,
      count: this.#opts.batch ?? 128,
      blockMs,
      reclaimIdleMs: this.#opts.reclaimIdleMs ?? 15_000,
    });
    const acked: QueuedEffect[] = [];
    const grouped = new Map<BatchEffectHandler, QueuedEffect[]>();
    for (const queued of batch) {
      const batchHandler = this.#opts.batchHandlers?.[queued.effect.type];
      if (batchHandler !== undefined) {
        let group = grouped.get(batchHandler);
        if (group === undefined) grouped.set(batchHandler, (group = []));
        group.push(queued);
      } else if (await this.#handle(queued)) acked.push(queued);
    }
    for (const [handler, group] of grouped) acked.push(...(await this.#handleBatch(handler, group)));
    if (acked.length > 0) {
      await this.#store.ackEffects(acked);
      for (const q of acked) this.#done.emit('handled', effectId(q));
    }
    return batch.length;
  }

  async #handle(queued: QueuedEffect): Promise<boolean> {
    const handler = this.#opts.handlers[queued.effect.type];
    if (!handler) {
      this.#opts.log.error({ effect: queued.effect }, 'no handler for effect type; dropping it');
      return true;
    }
    try {
      await handler(queued.tenant, queued.effect, effectId(queued));
      return true;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) {
        this.#opts.log.warn({ err, effect: queued.effect, deliveries: queued.deliveries }, 'effect handler failed; it will be retried');
      }
      return false;
    }
  }

  async #handleBatch(handler: BatchEffectHandler, group: QueuedEffect[]): Promise<QueuedEffect[]> {
    try {
      const handled = await handler(group.map((q) => ({ tenant: q.tenant, effect: q.effect, id: effectId(q) })));
      const failed = group.filter((_, i) => handled[i] !== true);
      if (failed.length > 0) this.#opts.log.warn({ failed: failed.length, of: group.length, type: failed[0]?.effect.type }, 'effects not handled; they will be retried');
      return group.filter((_, i) => handled[i] === true);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) this.#opts.log.warn({ err, effects: group.length }, 'batch effect handler failed; the effects will be retried');
      return [];
    }
  }
}

/** The runtime stamps each effect with `eid`; older entries fall back to the queue's event id. */
export function effectId(q: QueuedEffect): string {
  const eid = q.effect['eid'];
  return typeof eid === 'string' ? eid : q.eventId;
}
