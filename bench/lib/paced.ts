import { Pool } from 'undici';

/**
 * An open-loop load at a steady rate: requests are due at evenly spaced instants (checked every
 * millisecond) whatever the server does, and each latency is measured from the instant the request
 * was due, not from when it could be sent, so a stalled server cannot hide its queue (no coordinated
 * omission). autocannon's `overallRate` is a per-second budget sent in a burst, which measures
 * full-load latency instead; this is what "latency at half the maximum rate" needs.
 */
export interface PacedResult {
  readonly offered: number;
  readonly achieved: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly non2xx: number;
  readonly errors: number;
}

export async function paced(opts: {
  url: string;
  requests: readonly { path: string; headers?: Record<string, string> }[];
  rate: number;
  durationS: number;
  connections: number;
  /** Seconds at the same rate before measuring: connections are opened and code is warm. Default 2. */
  warmupS?: number;
}): Promise<PacedResult> {
  const pool = new Pool(opts.url, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let next = 0;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  const measureFrom = start + (opts.warmupS ?? 2) * 1000;
  const end = measureFrom + opts.durationS * 1000;
  const interval = 1000 / opts.rate;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      const dueUntil = Math.min(now, end);
      while (start + sent * interval <= dueUntil) {
        const due = start + sent * interval;
        sent++;
        const r = opts.requests[next++ % opts.requests.length]!;
        const p = pool.request({ path: r.path, method: 'GET', headers: r.headers ?? {} })
          .then(async (res) => {
            await res.body.dump();
            if (due < measureFrom) return;
            if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
            latencies.push(performance.now() - due);
          }, () => { if (due >= measureFrom) errors++; })
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (now >= end) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inFlight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const q = (f: number): number => Number((latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] ?? NaN).toFixed(2));
  return {
    offered: opts.rate, achieved: Math.round(latencies.length / opts.durationS), p50: q(0.5), p99: q(0.99), max: q(1), non2xx, errors,
  };
}
