import { BroadcastChannel } from 'node:worker_threads';
import type { Effect, EffectType } from '../domain/effects.js';
import { TARGET } from '../domain/target.js';
import type { QueuedEffect, Store, Tenant } from '../store/port.js';
import { StoreUnavailableError } from '../store/port.js';

/** Handles one effect; must be idempotent for `dedupe` (pass it on to the commit it makes). */
type EffectHandler<T extends EffectType> = (tenant: Tenant, effect: EffectOf<T>, dedupe: string) => Promise<void>;
type EffectOf<T extends EffectType> = Extract<Effect, { type: T }>;

/** One effect of a read batch, as a batch handler gets it. */
export interface BatchedEffect<E extends Effect = Effect> {
  readonly tenant: Tenant;
  readonly effect: E;
  /** Stable across redeliveries (see effectId). */
  readonly id: string;
}

/**
 * Handles all of a read batch's effects whose types share this object, in one call after the others,
 * in queue order (e.g. publishing them to a broker with one round of confirms). Resolves with one
 * flag per effect: true when it was handled (it is acked), false to have it handed out again.
 */
export interface BatchHandler<E extends Effect> {
  readonly batch: (effects: readonly BatchedEffect<E>[]) => Promise<readonly boolean[]>;
}

/** One handler per effect type: a type added to domain/effects.ts without a handler does not compile. */
export type EffectHandlers = { readonly [T in EffectType]: EffectHandler<T> | BatchHandler<EffectOf<T>> };

export interface DispatcherOptions {
  readonly consumer: string;
  readonly tenants: () => readonly Tenant[];
  readonly handlers: EffectHandlers;
  readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Effects left unacked this long by a consumer (e.g. a crashed process) are handed out again. */
  readonly reclaimIdleMs?: number;
  readonly batch?: number;
  /**
   * How long a read waits when the queue is empty (default 250 ms). The store ends the wait at once
   * when this process commits an effect, so this bounds how late effects left behind by other
   * (stopped) processes are seen, how long stop() may wait, and the idle cost: one read per tenant
   * per wait.
   */
  readonly blockMs?: number;
  /** Called when a settle gives up waiting (a metric: it stays 0 in normal operation). */
  readonly onSettleTimeout?: () => void;
}

/**
 * The event loops of one process (src/app/workers.ts) tell each other the effects they handled: each loop's
 * dispatcher is a consumer of the same queue, so an effect one loop's request committed is often handled
 * by another loop's dispatcher, and the request that waits for it (settle) must hear of it there.
 */
const HANDLED_CHANNEL = 'peregrine:effects-handled';
/** Effect ids remembered as handled, for a settle that starts after the news came (ids are random UUIDs). */
const RECENT = 4096;

/**
 * Consumes the durable effects queue: reads a batch, runs each effect's handler, acks it. An effect
 * whose handler fails is not acked and comes back after `reclaimIdleMs`; handlers dedupe on the
 * effect's id, so redelivery after a crash between commit and dispatch applies it exactly once.
 */
export class EffectDispatcher {
  readonly #store: Store;
  readonly #opts: DispatcherOptions;
  /** effect id -> what waits for it to be handled (settle) */
  readonly #waiting = new Map<string, Set<() => void>>();
  /** Effect ids handled lately, by this loop or another one of the process (oldest first). */
  readonly #recent = new Set<string>();
  #channel: BroadcastChannel | undefined;
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(store: Store, options: DispatcherOptions) {
    this.#store = store;
    this.#opts = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const channel = new BroadcastChannel(HANDLED_CHANNEL);
    channel.onmessage = (event) => {
      const ids = (event as MessageEvent).data as unknown;
      if (Array.isArray(ids)) this.#handled(ids.filter((id): id is string => typeof id === 'string'));
    };
    channel.unref(); // never what keeps a process or thread alive
    this.#channel = channel;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    this.#channel?.close();
    this.#channel = undefined;
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

  /**
   * Resolves true when these effects were handled by this process (any of its event loops), false
   * after `timeoutMs`. Waiters are kept by effect id: a batch acks many effects in one go, and each
   * waiter must hear of its own however many others were handled in the same turn.
   */
  async settle(effectIds: readonly string[], timeoutMs = 2000): Promise<boolean> {
    const ids = [...new Set(effectIds)].filter((id) => !this.#recent.has(id));
    if (ids.length === 0) return true;
    return new Promise<boolean>((resolve) => {
      let left = ids.length;
      const onHandled = (): void => {
        if (--left === 0) finish(true);
      };
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        for (const eid of ids) {
          const waiters = this.#waiting.get(eid);
          waiters?.delete(onHandled);
          if (waiters?.size === 0) this.#waiting.delete(eid);
        }
        resolve(ok);
      };
      const timer = setTimeout(() => {
        this.#opts.onSettleTimeout?.();
        finish(false);
      }, timeoutMs);
      for (const eid of ids) {
        let waiters = this.#waiting.get(eid);
        if (waiters === undefined) this.#waiting.set(eid, (waiters = new Set()));
        waiters.add(onHandled);
      }
    });
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
    const grouped = new Map<BatchHandler<Effect>, QueuedEffect[]>();
    // one-by-one effects per receiving actor, in queue order; different actors' run side by side
    const byReceiver = new Map<string, [EffectHandler<EffectType>, QueuedEffect][]>();
    for (const queued of batch) {
      // the queue holds what the runtime committed: domain Effects (or types a newer server added)
      const effect = queued.effect as unknown as Effect;
      const handler = Object.hasOwn(this.#opts.handlers, effect.type) ? (this.#opts.handlers[effect.type] as AnyHandler) : undefined;
      if (handler === undefined) {
        this.#opts.log.error({ effect: queued.effect }, 'no handler for effect type; dropping it');
        acked.push(queued);
      } else if (typeof handler === 'function') {
        const key = receiverOf(queued.tenant, effect);
        let queue = byReceiver.get(key);
        if (queue === undefined) byReceiver.set(key, (queue = []));
        queue.push([handler, queued]);
      } else {
        let group = grouped.get(handler);
        if (group === undefined) grouped.set(handler, (group = []));
        group.push(queued);
      }
    }
    await Promise.all([...byReceiver.values()].map(async (queue) => {
      for (const [handler, queued] of queue) if (await this.#handle(handler, queued)) acked.push(queued);
    }));
    for (const [handler, group] of grouped) acked.push(...(await this.#handleBatch(handler, group)));
    if (acked.length > 0) {
      await this.#store.ackEffects(acked);
      const ids = acked.map(effectId);
      this.#handled(ids);
      this.#channel?.postMessage(ids);
    }
    return batch.length;
  }

  /** Effects handled (here or by another loop): their waiters go on. */
  #handled(ids: readonly string[]): void {
    for (const id of ids) {
      this.#recent.add(id);
      const waiters = this.#waiting.get(id);
      if (waiters === undefined) continue;
      this.#waiting.delete(id);
      for (const w of waiters) w();
    }
    for (const old of this.#recent) {
      if (this.#recent.size <= RECENT) break;
      this.#recent.delete(old);
    }
  }

  async #handle(handler: EffectHandler<EffectType>, queued: QueuedEffect): Promise<boolean> {
    try {
      await handler(queued.tenant, queued.effect as unknown as Effect, effectId(queued));
      return true;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) {
        this.#opts.log.warn({ err, effect: queued.effect, deliveries: queued.deliveries }, 'effect handler failed; it will be retried');
      }
      return false;
    }
  }

  async #handleBatch(handler: BatchHandler<Effect>, group: QueuedEffect[]): Promise<QueuedEffect[]> {
    try {
      const handled = await handler.batch(group.map((q) => ({ tenant: q.tenant, effect: q.effect as unknown as Effect, id: effectId(q) })));
      const failed = group.filter((_, i) => handled[i] !== true);
      if (failed.length > 0) {
        const type = failed[0]?.effect.type;
        this.#opts.log.warn({ failed: failed.length, of: group.length, type }, 'effects not handled; they will be retried');
      }
      return group.filter((_, i) => handled[i] === true);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) {
        this.#opts.log.warn({ err, effects: group.length }, 'batch effect handler failed; the effects will be retried');
      }
      return [];
    }
  }
}

type AnyHandler = EffectHandler<EffectType> | BatchHandler<Effect>;

/**
 * The actor an effect changes, as a key: effects to one actor are handled in queue order, effects to
 * different actors concurrently (a rollout group's thousands of finished actions each tell their own
 * target). Several server instances consume the queue side by side anyway, so no order across actors
 * was ever promised; each send is a compare-and-set commit that retries on a conflict.
 */
function receiverOf(tenant: string, effect: Effect): string {
  switch (effect.type) {
    case 'send':
      return `${tenant}\0${effect.to.kind}\0${effect.to.id}`;
    case 'target.actionCanceled':
      return `${tenant}\0${TARGET}\0${effect.targetId}`;
    default:
      return `${tenant}\0${effect.type}`;
  }
}

/** The runtime stamps each effect with `eid`; older entries fall back to the queue's event id. */
export function effectId(q: QueuedEffect): string {
  const eid = q.effect['eid'];
  return typeof eid === 'string' ? eid : q.eventId;
}
