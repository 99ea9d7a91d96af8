/**
 * The DDI poll benchmark: what the server takes against the hardware ceiling measured in the same run.
 * The ceiling is a uWebSockets.js hello-world (own process) answering the exact bytes peregrine
 * answers, loaded by the same autocannon settings on the same machine.
 *
 *   node dist/bench/poll.js [--duration 5] [--rounds 3] [--connections 64] [--devices 1000] [--fleet 100000] [--quick]
 *
 * Prints a table and writes bench/results/poll-<time>.json and .md.
 */
import { Command } from 'commander';
import { startCeiling } from './lib/ceiling.js';
import { load, type LoadResult } from './lib/load.js';
import { paced, type PacedResult } from './lib/paced.js';
import { startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer, type BenchServer } from './lib/server.js';
import { api, createDevices, createReleaseAndAssign, pollEach, serverConfig } from './lib/fleet.js';

const program = new Command()
  .option('--duration <s>', 'seconds per measured run', '5')
  .option('--connections <n>', 'concurrent connections', '64')
  .option('--devices <n>', 'devices cycled through by the load', '1000')
  .option('--fleet <n>', 'registered targets for the memory figure', '100000')
  .option('--rounds <n>', 'alternating peregrine/ceiling runs per scenario', '3')
  .option('--quick', 'short runs (3 s) and a 10,000-target fleet, for a smoke test')
  .parse();
const o = program.opts<{ duration: string; connections: string; devices: string; fleet: string; rounds: string; quick?: boolean }>();
const duration = o.quick ? 3 : Number(o.duration);
const connections = Number(o.connections);
const devices = Number(o.devices);
const fleet = o.quick ? 10_000 : Number(o.fleet);
const rounds = o.quick ? 1 : Number(o.rounds);

interface Row {
  readonly name: string;
  readonly peregrine: number;
  readonly ceiling: number;
  /** Median of the ratios of alternating peregrine/ceiling runs: robust to the machine drifting. */
  readonly ratio: number;
  readonly ratios: readonly number[];
  readonly peregrineP99: number;
  readonly half?: { readonly peregrine: PacedResult; readonly ceiling: PacedResult };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function pollRequests(tokens: readonly string[], tenant = 'DEFAULT') {
  return tokens.map((token, i) => ({ path: `/${tenant}/controller/v1/dev-${i}`, headers: { authorization: `TargetToken ${token}` } }));
}

/**
 * Maximum rate: `rounds` alternating autocannon runs against peregrine and the ceiling (same
 * requests, same settings); then, optionally, the latency of both at half of peregrine's maximum
 * with the paced generator.
 */
async function measure(name: string, server: BenchServer, tokens: readonly string[], withHalfRate: boolean): Promise<Row> {
  const requests = pollRequests(tokens);
  const sample = await fetch(server.url + requests[0]!.path, { headers: requests[0]!.headers });
  if (sample.status !== 200) throw new Error(`poll answered ${sample.status}: ${await sample.text()}`);
  const body = await sample.text();
  const ceiling = await startCeiling(body, sample.headers.get('content-type') ?? 'application/json');
  try {
    const run = async (url: string): Promise<LoadResult> => {
      const r = await load({ url, requests, connections, durationS: duration });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors at ${url}`);
      return r;
    };
    await load({ url: server.url, requests, connections, durationS: 2 }); // warm-up (JIT, caches)
    await load({ url: ceiling.url, requests, connections, durationS: 2 });
    const ps: LoadResult[] = [];
    const cs: LoadResult[] = [];
    for (let i = 0; i < rounds; i++) {
      ps.push(await run(server.url));
      cs.push(await run(ceiling.url));
    }
    const ratios = ps.map((p, i) => p.rps / cs[i]!.rps);
    const row: Row = {
      name, peregrine: median(ps.map((p) => p.rps)), ceiling: median(cs.map((c) => c.rps)), ratio: median(ratios), ratios,
      peregrineP99: median(ps.map((p) => p.p99)),
    };
    console.log(`${name}: peregrine ${row.peregrine.toFixed(0)} req/s, ceiling ${row.ceiling.toFixed(0)} req/s, ratio ${row.ratio.toFixed(2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
    if (!withHalfRate) return row;
    const rate = Math.round(row.peregrine / 2);
    const pp: PacedResult[] = [];
    const cp: PacedResult[] = [];
    for (let i = 0; i < rounds; i++) {
      pp.push(await paced({ url: server.url, requests, rate, durationS: duration, connections }));
      cp.push(await paced({ url: ceiling.url, requests, rate, durationS: duration, connections }));
    }
    const mid = (xs: PacedResult[]): PacedResult => [...xs].sort((a, b) => a.p99 - b.p99)[Math.floor(xs.length / 2)]!;
    const half = { peregrine: mid(pp), ceiling: mid(cp) };
    console.log(`  at half the maximum (${rate} req/s, paced, median of ${rounds}): peregrine p50 ${half.peregrine.p50} ms p99 ${half.peregrine.p99} ms (rounds ${pp.map((x) => x.p99).join(', ')}); ceiling p50 ${half.ceiling.p50} ms p99 ${half.ceiling.p99} ms (rounds ${cp.map((x) => x.p99).join(', ')})`);
    return { ...row, half };
  } finally {
    await ceiling.stop();
  }
}

async function withServer<T>(store: 'memory' | 'redis', fn: (server: BenchServer) => Promise<T>): Promise<T> {
  let redis: BenchRedis | undefined;
  if (store === 'redis') redis = await startRedis();
  const server = await startServer(serverConfig(store, redis?.url));
  try {
    return await fn(server);
  } finally {
    await server.stop();
    await redis?.stop();
  }
}

const rows: Row[] = [];
const figures: Record<string, number> = {};

await withServer('memory', async (server) => {
  const tokens = await createDevices(api(server.url), devices);
  await pollEach(server.url, tokens);
  rows.push(await measure('poll, no open action, memory store', server, tokens, true));
});

await withServer('redis', async (server) => {
  const tokens = await createDevices(api(server.url), devices);
  await pollEach(server.url, tokens);
  rows.push(await measure('poll, no open action, redis store', server, tokens, true));
  await createReleaseAndAssign(api(server.url), devices);
  rows.push(await measure('poll, open action, redis store', server, tokens, false));
});

await withServer('memory', async (server) => {
  const before = server.rss();
  const tokens = await createDevices(api(server.url), fleet);
  await pollEach(server.url, tokens);
  await new Promise((r) => setTimeout(r, 1500)); // let the write-behind flush
  figures['rss_mb_before_fleet'] = before / 2 ** 20;
  figures[`rss_mb_with_${fleet}_polled_targets`] = server.rss() / 2 ** 20;
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? NaN);
  figures[`heap_used_mb_with_${fleet}_polled_targets`] = heap / 2 ** 20;
  console.log(`server memory with ${fleet} registered targets that all polled once: ${(server.rss() / 2 ** 20).toFixed(0)} MiB (${(before / 2 ** 20).toFixed(0)} MiB empty)`);
});

writeResults('poll', { duration, rounds, connections, devices, fleet }, rows.map((r) => ({
  run: r.name, peregrine_rps: Math.round(r.peregrine), ceiling_rps: Math.round(r.ceiling), ratio: Number(r.ratio.toFixed(3)),
  round_ratios: r.ratios.map((x) => x.toFixed(2)).join(' '), peregrine_p99_ms_at_max: r.peregrineP99,
  half_rate: r.half ? r.half.peregrine.offered : '-',
  peregrine_p99_ms_at_half: r.half ? r.half.peregrine.p99 : '-',
  ceiling_p99_ms_at_half: r.half ? r.half.ceiling.p99 : '-',
})), figures);
