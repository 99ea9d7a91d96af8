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
 * new and refreshed buckets go to the young one; every FULL_MS (the time an untouched bucket takes to
 * fill up again), or sooner when the young one holds half of `maxDevices`, it becomes the old one and
 * the previous old one is dropped. A bucket dropped on time was last touched at least FULL_MS ago, so
 * it was full: forgetting it changes nothing. A bucket dropped for space starts again full, which only
 * ever errs on the lenient side. So a device polling steadily is found in the young generation, one
 * lookup by values the poll already has (no key built, no recency list), and moves once per FULL_MS:
 * on large fleets this limiter is on every poll (with 100,000 devices cycled and the old size-only
 * rotation every poll missed the young generation: four lookups and an insert).
 *
 * Devices at an address of `ddi.pollLimiter.exemptCidrs` are never paced, as hawkBit's DoS filter never
 * limits its whitelist (loopback and private addresses by default): `exempt` / `exemptText`.
 * @see spec 7 (429), 2.11 minPollingTime
 */
import { inRanges, ipv4Number, ipv4Ranges, type Ipv4Range } from '../config/cidr.js';

export const BURST = 10;
/** One more poll per second once the burst is used (1 second). */
const REFILL_MS = 1000;
/** An untouched bucket is full again after this long (at most: the refill is never slower than REFILL_MS). */
export const FULL_MS = BURST * REFILL_MS;

/** A device's bucket; a caller may keep it between polls while `rotations` stays the same (`takeFrom`). */
export interface Bucket {
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
  /** When the young generation began. */
  #youngSince = 0;
  #rotations = 0;

  readonly #exempt: readonly Ipv4Range[];

  /**
   * `maxDevices`: about 100 bytes each at most; the bound only matters for fleets that size polling within FULL_MS.
   * `exemptCidrs`: IPv4 CIDR blocks whose devices are never paced.
   */
  constructor(maxDevices = 1_000_000, exemptCidrs: readonly string[] = []) {
    this.#half = Math.max(1, Math.floor(maxDevices / 2));
    this.#exempt = ipv4Ranges(exemptCidrs);
  }

  /** Some addresses are exempt. */
  get exempting(): boolean {
    return this.#exempt.length > 0;
  }

  /** A device at this IPv4 address (an unsigned 32-bit number; negative for none) is never paced. */
  exempt(ip: number): boolean {
    return inRanges(this.#exempt, ip);
  }

  /** `exempt` for an address in text (IPv6 is never exempt). */
  exemptText(ip: string): boolean {
    return inRanges(this.#exempt, ipv4Number(ip));
  }

  take(tenant: string, device: DeviceKey, minPollingMs: number, now: number): PollDecision {
    return minPollingMs <= 0 ? OK : this.takeFrom(this.bucket(tenant, device, now), minPollingMs, now);
  }

  /** How often the generations turned: a bucket got from `bucket` stays the device's until this moves. */
  get rotations(): number {
    return this.#rotations;
  }

  /** The device's bucket (a full one when it has none), kept in the young generation. */
  bucket(tenant: string, device: DeviceKey, now: number): Bucket {
    if (now - this.#youngSince >= FULL_MS) this.#rotate(now);
    let b = this.#young.get(tenant)?.get(device);
    if (b === undefined) {
      b = this.#old.get(tenant)?.get(device) ?? { tokens: BURST, at: now };
      this.#keep(tenant, device, b);
    }
    return b;
  }

  /** A poll taken from the device's bucket (see `bucket`). */
  takeFrom(b: Bucket, minPollingMs: number, now: number): PollDecision {
    if (minPollingMs <= 0) return OK;
    const refillMs = Math.min(minPollingMs, REFILL_MS);
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

  #rotate(now: number): void {
    this.#old = this.#young;
    this.#young = new Map();
    this.#youngSize = 0;
    this.#youngSince = now;
    this.#rotations++;
  }

  #keep(tenant: string, device: DeviceKey, b: Bucket): void {
    if (this.#youngSize >= this.#half) this.#rotate(this.#youngSince);
    let devices = this.#young.get(tenant);
    if (devices === undefined) this.#young.set(tenant, (devices = new Map<DeviceKey, Bucket>()));
    devices.set(device, b);
    this.#youngSize++;
  }
}
