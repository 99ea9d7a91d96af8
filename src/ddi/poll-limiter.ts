/**
 * Per-device poll pacing: a token bucket per (tenant, controller id). The bucket holds BURST polls
 * and refills one poll per tenant `minPollingTime`; a poll that finds it empty answers 429 with
 * `Retry-After` (whole seconds until the next poll is allowed). So a device may poll BURST times in
 * a row (after a restart, or while it walks the links of a new action) and then keeps to
 * minPollingTime on average. `minPollingTime` 00:00:00 switches the limit off.
 *
 * State is a few numbers per device in an LRU cache of at most `maxDevices` entries; a device that
 * falls out of it starts again with a full bucket, which only ever errs on the lenient side.
 * @see spec 7 (429), 2.11 minPollingTime
 */
import { LRUCache } from 'lru-cache';

export const BURST = 10;

interface Bucket {
  tokens: number;
  at: number;
}

export type PollDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

const OK: PollDecision = Object.freeze({ ok: true });

export class PollLimiter {
  readonly #buckets: LRUCache<string, Bucket>;

  constructor(maxDevices = 100_000) {
    this.#buckets = new LRUCache({ max: maxDevices });
  }

  take(tenant: string, controllerId: string, minPollingMs: number, now: number): PollDecision {
    if (minPollingMs <= 0) return OK;
    const key = `${tenant}\u0000${controllerId}`;
    const b = this.#buckets.get(key);
    if (b === undefined) {
      this.#buckets.set(key, { tokens: BURST - 1, at: now });
      return OK;
    }
    const tokens = Math.min(BURST, b.tokens + Math.max(0, now - b.at) / minPollingMs);
    b.at = now;
    if (tokens >= 1) {
      b.tokens = tokens - 1;
      return OK;
    }
    b.tokens = tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - tokens) * minPollingMs) / 1000)) };
  }
}
