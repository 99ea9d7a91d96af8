/**
 * The end-to-end rollouts (answering-rollout.ts) as a benchmark's table row, figures and notes: start to
 * finished against the lower bound the poll interval sets, as a ratio (bound over measured: 1.0 is the
 * bound, 0.5 twice it), per-group times, and the CPU of the server, the fleet and Redis, with the check
 * whether the fleet's process saturated (then the figure is the fleet's, not the server's).
 */
import type { AnsweringResult, RoundResult } from './answering-rollout.js';
import { median, stats } from './stats.js';

/** A fleet process above this share of one core is taken as saturated (a Node.js process runs its JavaScript on one). */
const SATURATED = 0.9;

const round2 = (x: number): number => Math.round(x * 100) / 100;
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);

export function answeringView(store: string, r: AnsweringResult, o: { devices: number; waves: number; pollS: number }): {
  row: Record<string, unknown>; figures: Record<string, number>; notes: string[];
} {
  const secs = stats(r.rounds.map((x) => x.seconds));
  const bound = o.waves * o.pollS;
  const cores = (f: (x: RoundResult) => number | undefined): number => median(r.rounds.map((x) => (f(x) ?? 0) / x.seconds));
  const fleetCores = cores((x) => x.fleetCpuS);
  const fleetMax = Math.max(...r.rounds.map((x) => x.fleetCpuS / x.seconds));
  const row = {
    step: 'rollout end to end', store, devices: o.devices, groups: o.waves, 'poll (s)': o.pollS, rounds: r.rounds.length,
    'start -> finished (s)': `${secs.median.toFixed(2)} (${secs.min.toFixed(2)}-${secs.max.toFixed(2)})`,
    'bound (s)': bound, 'x bound': round2(secs.median / bound), ratio: round2(bound / secs.median),
    'server cores': round2(cores((x) => x.serverCpuS)), 'fleet cores': round2(fleetCores),
    ...(store === 'redis' ? { 'redis cores': round2(cores((x) => x.redisCpuS)) } : {}),
    'fleet saturated': fleetMax >= SATURATED ? 'yes' : 'no',
  };
  const figures: Record<string, number> = {};
  const groups = r.rounds[0]?.groups.length ?? 0;
  for (let i = 0; i < groups; i++) {
    const at = (f: (x: RoundResult) => number): number => round2(median(r.rounds.map(f)));
    const g = (x: RoundResult) => x.groups[i]!;
    const p = `${store} group ${i + 1}`;
    figures[`${p} running at (s)`] = at((x) => g(x).runningAt);
    figures[`${p} every action started at (s)`] = at((x) => g(x).startedAt);
    figures[`${p} every action finished at (s)`] = at((x) => g(x).actionsDoneAt);
    figures[`${p} finished at (s)`] = at((x) => g(x).finishedAt);
    if (i > 0) figures[`${p} running after every action of group ${i} finished (s)`] = at((x) => g(x).runningAt - x.groups[i - 1]!.actionsDoneAt);
  }
  const rounds = r.rounds;
  const last = rounds[rounds.length - 1];
  figures[`${store} updates per minute (median round)`] = Math.round(o.devices / (secs.median / 60));
  figures[`${store} server RSS, highest during the rollouts (MiB)`] = mib(Math.max(...rounds.map((x) => x.serverRssMax)));
  if (last?.redisBytes !== undefined) {
    figures[`${store} Redis used_memory before the last rollout (MiB)`] = mib(last.redisBytes.before);
    figures[`${store} Redis used_memory after it (MiB)`] = mib(last.redisBytes.after);
  }
  figures[`${store} fleet registration (s)`] = round2(r.registrationS);
  const f = r.fleet;
  const errors = Object.entries(f.errorsByStatus).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  const notes = [
    `${store}: the fleet (peregrine-sim, its own process) sent ${f.requests.total} requests (${Math.round(f.requests.perSecond)}/s over the whole run), `
    + `poll lag p99 ${f.polls.lagMs.p99} ms (max ${f.polls.lagMs.max} ms), ${f.polls.lateOver1s} polls late by over 1 s, errors ${errors}, `
    + `${f.counters.updates} updates; the fleet used ${fleetCores.toFixed(2)} of a core in the median round (at most ${fleetMax.toFixed(2)})`
    + (fleetMax >= SATURATED ? ': SATURATED, so the rollout time is (also) the fleet\'s, not only the server\'s' : ': not saturated'),
    `${store}: the fleet's requests by kind (count, latency p50 / p99 ms, to the response headers): `
    + Object.entries(f.requests.byKind).filter(([, k]) => k.count > 0)
      .map(([kind, k]) => `${kind} ${k.count} (${k.latencyMs.p50} / ${k.latencyMs.p99})`).join(', '),
    ...(r.observer503 > 0 ? [`${store}: the benchmark's Management reads got ${r.observer503} 503s (the store late under load) and retried them`] : []),
  ];
  return { row, figures, notes };
}
