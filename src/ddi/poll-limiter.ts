/**
 * Per-device poll pacing: a token bucket per (tenant, controller id). The bucket holds BURST polls
 * and refills one poll per second (or per `minPollingTime` when that is shorter); a poll that finds
 * it empty answers 429 with `Retry-After: 1`, spec 7's "the client must wait another second". A
 * device may poll BURST times in a row (after a restart, or while it walks the links of a new
 * action) and then at most once a second: a runaway loop is contained, while clients that poll again
 * right after each step, as hawkBit clients do, are never refused. The sleep the poll answers is
 * never below `minPollingTime`. `minPollingTime` 00:00:00 switches the limit off.
 *
 * State is a few numbers per device in two generations of maps (tenant -> controller id -> bucket):
 * new and refreshed buckets go to the young one; when it holds half of `maxDevices`, it becomes the
 * old one and the previous old one is dropped. So at most `maxDevices` devices are remembered, the
 * most recently polling half at least; a device that falls out starts again with a full bucket, which
 * only ever errs on the lenient side. A poll costs two map lookups by the strings it already has (no
 * key built, no recency list to update): on large fleets this limiter is on every poll.
 * @see spec 7 (429), 2.11 minPollingTime
 */

export const BURST = 10;
/** One more poll per second once the burst is used (1 second). */
const REFILL_MS = 1000;

interface Bucket {
  tokens: number;
  at: number;
}

type Generation = Map<string, Map<string, Bucket>>;

export type PollDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

const OK: PollDecision = Object.freeze({ ok: true });

export class PollLimiter {
  readonly #half: number;
  #young: Generation = new Map();
  #old: Generation = new Map();
  #youngSize = 0;

  constructor(maxDevices = 100_000) {
    this.#half = Math.max(1, Math.floor(maxDevices / 2));
  }

  take(tenant: string, controllerId: string, minPollingMs: number, now: number): PollDecision {
    if (minPollingMs <= 0) return OK;
    const refillMs = Math.min(minPollingMs, REFILL_MS);
    let b = this.#young.get(tenant)?.get(controllerId);
    if (b === undefined) {
      b = this.#old.get(tenant)?.get(controllerId);
      if (b === undefined) {
        this.#keep(tenant, controllerId, { tokens: BURST - 1, at: now });
        return OK;
      }
      this.#keep(tenant, controllerId, b);
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

  #keep(tenant: string, controllerId: string, b: Bucket): void {
    if (this.#youngSize >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngSize = 0;
    }
    let devices = this.#young.get(tenant);
    if (devices === undefined) this.#young.set(tenant, (devices = new Map<string, Bucket>()));
    devices.set(controllerId, b);
    this.#youngSize++;
  }
}
