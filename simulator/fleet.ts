/**
 * The fleet: its device groups (group.ts), the devices themselves and the one scheduler that wakes
 * them. Devices move between states through `moved`, so counts by state are kept up to date without
 * scanning.
 */
import { randomBytes } from 'node:crypto';
import { Device, STATES, type DeviceState } from './device.js';
import { GroupRuntime } from './group.js';
import type { SimHttp } from './http.js';
import type { Scenario } from './scenario.js';
import { Scheduler } from './scheduler.js';
import type { Stats } from './stats.js';

export class Fleet {
  readonly devices: Device[] = [];
  readonly groups: GroupRuntime[];
  /** Devices by state (index = STATES). */
  readonly counts: number[] = STATES.map(() => 0);
  registered = 0;
  /**
   * This run's id: every device reports it as the attribute `sim_run` before it counts as registered,
   * and the run's rollouts and expectations select targets by it, so an earlier run's targets (other
   * devices under the same id pattern) never join this run's rollout or counts.
   */
  readonly runId: string;
  /**
   * Why the server refused the fleet outright (a 404 to a device's first poll: no such tenant), with
   * the server's message; the run stops on it instead of retrying until its time is over.
   */
  refusal: string | undefined;
  private readonly scheduler: Scheduler<Device>;
  private inFlight = 0;
  private running = false;
  private drained: (() => void) | undefined;

  constructor(readonly scenario: Scenario, http: SimHttp, stats: Stats, random: () => number = Math.random, runId = newRunId()) {
    this.runId = runId;
    this.groups = scenario.fleet.groups.map((g) => new GroupRuntime(this, g, scenario, http, stats, scenario.timeScale, random));
    for (const g of this.groups) for (let n = 0; n < g.spec.count; n++) this.devices.push(new Device(g, n));
    this.counts[0] = this.devices.length;
    this.scheduler = new Scheduler<Device>((d, now) => this.fire(d, now));
  }

  get size(): number { return this.devices.length; }

  byState(): Record<DeviceState, number> {
    return Object.fromEntries(STATES.map((s, i) => [s, this.counts[i]])) as Record<DeviceState, number>;
  }

  moved(from: number, to: number): void { this.counts[from]!--; this.counts[to]!++; }

  /** Starts polling; first polls spread evenly over rampMs, groups interleaved. */
  start(rampMs: number): void {
    this.running = true;
    const now = Date.now();
    const n = this.devices.length;
    // interleave: device k of the stride order, so every group starts early
    const order = interleave(this.groups.map((g) => g.spec.count));
    order.forEach((idx, k) => this.scheduler.at(now + (n > 1 ? Math.floor((rampMs * k) / n) : 0), this.devices[idx]!));
  }

  /** Stops waking devices and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.scheduler.stop();
    if (this.inFlight > 0) await new Promise<void>((resolve) => { this.drained = resolve; });
  }

  private fire(d: Device, now: number): void {
    if (!this.running) return;
    this.inFlight++;
    void d.wake(now).then((next) => {
      this.inFlight--;
      if (this.running) this.scheduler.at(next, d);
      else if (this.inFlight === 0) this.drained?.();
    });
  }
}

/** Device indexes (into the flat list of all groups) in an order that alternates between groups. */
function interleave(counts: readonly number[]): number[] {
  const offsets = counts.map((_, i) => counts.slice(0, i).reduce((a, b) => a + b, 0));
  const total = counts.reduce((a, b) => a + b, 0);
  const keyed: [number, number][] = [];
  counts.forEach((c, g) => { for (let n = 0; n < c; n++) keyed.push([(n + 0.5) / c, offsets[g]! + n]); });
  keyed.sort((a, b) => a[0] - b[0]);
  return keyed.length === total ? keyed.map(([, i]) => i) : [];
}

/** A run's id: 8 hex digits. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}
