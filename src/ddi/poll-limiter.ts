/**
 * Per-device poll pacing: a token bucket per (tenant, controller id). The bucket holds BURST polls
 * and refills one poll per second (or per `minPollingTime` when that is shorter); a poll that finds
 * it empty answers 429 with `Retry-After: 1`, spec 7's "the client must wait another second". A
 * device may poll BURST times in a row (after a restart, or while it walks the links of a new
 * action) and then at most once a second: a runaway loop is contained, while clients that poll again
 * right after each step, as hawkBit clients do, are never refused. The sleep the poll answers is
 * never below `minPollingTime`. `minPollingTime` 00:00:00 switches the limit off.
 *
 * State is a few numbers per device in an LRU cache of at most `maxDevices` entries; a device that
 * falls out of it starts again with a full bucket, which only ever errs on the lenient side.
 * @see spec 7 (429), 2.11 minPollingTime
 */
import { LRUCache } from 'lru-cache';

export const BURST = 10;
/** One more poll per second once the burst is used (1 second). */
const REFILL_MS = 1000;

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
    const refillMs = Math.min(minPollingMs, REFILL_MS);
    const key = `${tenant}\u0000${controllerId}`;
    const b = this.#buckets.get(key);
    if (b === undefined) {
      this.#buckets.set(key, { tokens: BURST - 1, at: now });
      return OK;
    }
    const tokens = Math.min(BURST, b.tokens + Math.max(0, now - b.at) / refillMs);
    b.at = now;
    if (tokens >= 1) {
      b.tokens = tokens - 1;
      return OK;
    }
    b.tokens = tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - tokens) * refillMs) / 1000)) };
  }
}
