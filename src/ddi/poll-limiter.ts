/**
 * Per-device poll pacing: a token bucket per (tenant, device). The bucket holds BURST polls
 * and refills one poll per second (or per `minPollingTime` when that is shorter); a poll that finds
 * it empty answers 429 with `Retry-After: 1`, spec 7's "the client must wait another second". A
 * device may poll BURST times in a row (after a restart, or while it walks the links of a new
 * action) and then at most once a second: a runaway loop is contained, while clients that poll again
 * right after each step, as hawkBit clients do, are never refused. The sleep the poll answers is
 * never below `minPollingTime`. `minPollingTime` 00:00:00 switches the limit off.
 *
 * A device is its target id once it is registered, its controller id before; registration hands the
 * bucket over (`registered`).
 *
 * State is a few numbers per device in two generations of maps (tenant -> device -> bucket):
 * new and refreshed buckets go to the young one; when it holds half of `maxDevices`, it becomes the
 * old one and the previous old one is dropped. So at most `maxDevices` devices are remembered, the
 * most recently polling half at least; a device that falls out starts again with a full bucket, which
 * only ever errs on the lenient side. A poll costs two map lookups by values it already has (no key
 * built, no recency list to update): on large fleets this limiter is on every poll.
 * @see spec 7 (429), 2.11 minPollingTime
 */

export const BURST = 10;
/** One more poll per second once the burst is used (1 second). */
const REFILL_MS = 1000;

interface Bucket {
  tokens: number;
  at: number;
}

/** tenant -> device (its target id once registered, else its controller id) -> bucket */
type Generation = Map<string, Map<DeviceKey, Bucket>>;

/** A known target by its id (a number hashes without reading a string), an unknown device by its controller id. */
export type DeviceKey = number | string;

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

  take(tenant: string, device: DeviceKey, minPollingMs: number, now: number): PollDecision {
    if (minPollingMs <= 0) return OK;
    const refillMs = Math.min(minPollingMs, REFILL_MS);
    let b = this.#young.get(tenant)?.get(device);
    if (b === undefined) {
      b = this.#old.get(tenant)?.get(device);
      if (b === undefined) {
        this.#keep(tenant, device, { tokens: BURST - 1, at: now });
        return OK;
      }
      this.#keep(tenant, device, b);
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

  /** A device registered: its bucket, kept under its controller id so far, is kept under its target id. */
  registered(tenant: string, controllerId: string, targetId: number): void {
    for (const generation of [this.#young, this.#old]) {
      const devices = generation.get(tenant);
      const b = devices?.get(controllerId);
      if (b === undefined) continue;
      devices?.delete(controllerId);
      devices?.set(targetId, b);
    }
  }

  #keep(tenant: string, device: DeviceKey, b: Bucket): void {
    if (this.#youngSize >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngSize = 0;
    }
    let devices = this.#young.get(tenant);
    if (devices === undefined) this.#young.set(tenant, (devices = new Map<DeviceKey, Bucket>()));
    devices.set(device, b);
    this.#youngSize++;
  }
}
