/**
 * A fleet of virtual devices sharing one connection pool and one stats object. Devices start spread
 * over the first polling interval (no thundering herd) and stop when the duration ends, when `stop()`
 * is called, or when `until(stats)` becomes true.
 */
import { VirtualDevice, type DeviceAuth, type DeviceBehaviour } from './device.js';
import { SimHttp } from './http.js';
import { emptyStats, type FleetStats } from './stats.js';

export interface FleetOptions {
  readonly server: string;
  readonly tenant: string;
  readonly count: number;
  readonly prefix: string;
  /** Auth for device i (gateway/anonymous: the same for all; target tokens differ per device). */
  readonly auth: DeviceAuth | ((controllerId: string, index: number) => DeviceAuth);
  readonly durationMs: number;
  /** Most requests in flight at once (and pool connections). */
  readonly concurrency?: number;
  readonly behaviour?: Partial<DeviceBehaviour>;
  /** Spread device start over this many ms (default: one scaled default polling interval). */
  readonly rampMs?: number;
  /** Checked after every poll round of a device; the fleet stops once it returns true. */
  readonly until?: (stats: FleetStats) => boolean;
}

export interface FleetHandle {
  /** Live statistics (updated while the fleet runs). */
  readonly stats: FleetStats;
  readonly controllerIds: readonly string[];
  /** Resolves with the final statistics once every device stopped. */
  readonly done: Promise<FleetStats>;
  stop(): Promise<FleetStats>;
}

export const DEFAULT_BEHAVIOUR: DeviceBehaviour = {
  timeScale: 0.001, minSleepMs: 50, maxSleepMs: Number.POSITIVE_INFINITY, failureRate: 0, denyRate: 0,
  attributes: {}, rangeChunkBytes: 0, random: Math.random,
};

export function controllerIdOf(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(5, '0')}`;
}

export function startFleet(o: FleetOptions): FleetHandle {
  const behaviour: DeviceBehaviour = { ...DEFAULT_BEHAVIOUR, ...o.behaviour };
  const stats = emptyStats(o.count);
  const http = new SimHttp(o.server, Math.max(1, o.concurrency ?? 32));
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), o.durationMs);
  const ramp = o.rampMs ?? Math.max(behaviour.minSleepMs, 300_000 * behaviour.timeScale);
  const controllerIds = Array.from({ length: o.count }, (_, i) => controllerIdOf(o.prefix, i));
  const untilWatch = o.until ? setInterval(() => { if (o.until?.(stats)) abort.abort(); }, 25) : undefined;

  const runs = controllerIds.map((controllerId, i) => {
    const auth = typeof o.auth === 'function' ? o.auth(controllerId, i) : o.auth;
    const device = new VirtualDevice({ server: o.server, tenant: o.tenant, controllerId, auth, http, stats, behaviour });
    return device.run(abort.signal, o.count > 1 ? Math.floor((ramp * i) / o.count) : 0);
  });
  const done = Promise.all(runs).then(async () => {
    clearTimeout(timer);
    if (untilWatch) clearInterval(untilWatch);
    await http.close();
    stats.elapsedMs = Date.now() - stats.startedAt;
    return stats;
  });
  return {
    stats, controllerIds, done,
    stop: () => { abort.abort(); return done; },
  };
}

/** Runs a fleet to its end and returns the statistics. */
export function runFleet(o: FleetOptions): Promise<FleetStats> {
  return startFleet(o).done;
}
