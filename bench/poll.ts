/**
 * The DDI poll benchmark: what the server takes against the hardware ceiling measured in the same run.
 * The ceiling is a uWebSockets.js hello-world (own process) answering the exact bytes peregrine
 * answers, loaded by the same autocannon settings on the same machine.
 *
 *   node dist/bench/poll.js [--duration 10] [--connections 64] [--devices 1000] [--fleet 100000] [--quick]
 *
 * Prints a table and writes bench/results/poll-<time>.json and .md.
 */
import { Command } from 'commander';
import { startCeiling } from './lib/ceiling.js';
import { load, type LoadResult } from './lib/load.js';
import { startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer, type BenchServer } from './lib/server.js';
import { api, createDevices, createReleaseAndAssign, pollEach, serverConfig } from './lib/fleet.js';

const program = new Command()
  .option('--duration <s>', 'seconds per measured run', '10')
  .option('--connections <n>', 'concurrent connections', '64')
  .option('--devices <n>', 'devices cycled through by the load', '1000')
  .option('--fleet <n>', 'registered targets for the memory figure', '100000')
  .option('--quick', 'short runs (3 s) and a 10,000-target fleet, for a smoke test')
  .parse();
const o = program.opts<{ duration: string; connections: string; devices: string; fleet: string; quick?: boolean }>();
const duration = o.quick ? 3 : Number(o.duration);
const connections = Number(o.connections);
const devices = Number(o.devices);
const fleet = o.quick ? 10_000 : Number(o.fleet);

interface Row { readonly name: string; readonly peregrine: LoadResult; readonly ceiling: LoadResult; readonly ratio: number }

async function measure(name: string, server: BenchServer, tokens: readonly string[], tenant = 'DEFAULT'): Promise<Row> {
  const requests = tokens.map((token, i) => ({ path: `/${tenant}/controller/v1/dev-${i}`, headers: { authorization: `TargetToken ${token}` } }));
  const sample = await fetch(server.url + requests[0]!.path, { headers: requests[0]!.headers });
  if (sample.status !== 200) throw new Error(`poll answered ${sample.status}: ${await sample.text()}`);
  const body = await sample.text();
  const ceiling = await startCeiling(body, sample.headers.get('content-type') ?? 'application/json');
  try {
    const run = (url: string, rate?: number) => load({ url, requests, connections, durationS: duration, ...(rate ? { rate } : {}) });
    await load({ url: server.url, requests, connections, durationS: 2 }); // warm-up
    await load({ url: ceiling.url, requests, connections, durationS: 2 });
    const p = await run(server.url);
    const c = await run(ceiling.url);
    if (p.non2xx > 0 || p.errors > 0) throw new Error(`${name}: ${p.non2xx} non-2xx answers, ${p.errors} errors`);
    console.log(`${name}: peregrine ${p.rps.toFixed(0)} req/s, ceiling ${c.rps.toFixed(0)} req/s, ratio ${(p.rps / c.rps).toFixed(2)}`);
    return { name, peregrine: p, ceiling: c, ratio: p.rps / c.rps };
  } finally {
    await ceiling.stop();
  }
}

async function halfRateLatency(server: BenchServer, tokens: readonly string[], maxRps: number): Promise<LoadResult> {
  const requests = tokens.map((token, i) => ({ path: `/DEFAULT/controller/v1/dev-${i}`, headers: { authorization: `TargetToken ${token}` } }));
  const r = await load({ url: server.url, requests, connections, durationS: duration, rate: Math.round(maxRps / 2) });
  console.log(`p99 at half the maximum rate (${Math.round(maxRps / 2)} req/s offered): ${r.p99} ms (p50 ${r.p50} ms)`);
  return r;
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
  const row = await measure('poll, no open action, memory store', server, tokens);
  rows.push(row);
  const half = await halfRateLatency(server, tokens, row.peregrine.rps);
  figures['p99_ms_at_half_rate_memory'] = half.p99;
});

await withServer('redis', async (server) => {
  const tokens = await createDevices(api(server.url), devices);
  await pollEach(server.url, tokens);
  const row = await measure('poll, no open action, redis store', server, tokens);
  rows.push(row);
  const half = await halfRateLatency(server, tokens, row.peregrine.rps);
  figures['p99_ms_at_half_rate_redis'] = half.p99;
  await createReleaseAndAssign(api(server.url), devices);
  rows.push(await measure('poll, open action, redis store', server, tokens));
});

await withServer('memory', async (server) => {
  const before = server.rss();
  const tokens = await createDevices(api(server.url), fleet);
  await pollEach(server.url, tokens);
  await new Promise((r) => setTimeout(r, 1500)); // let the write-behind flush
  figures['rss_mb_before_fleet'] = before / 2 ** 20;
  figures[`rss_mb_with_${fleet}_polled_targets`] = server.rss() / 2 ** 20;
  console.log(`server memory with ${fleet} registered targets that all polled once: ${(server.rss() / 2 ** 20).toFixed(0)} MiB (${(before / 2 ** 20).toFixed(0)} MiB empty)`);
});

writeResults('poll', { duration, connections, devices, fleet }, rows.map((r) => ({
  run: r.name, peregrine_rps: Math.round(r.peregrine.rps), ceiling_rps: Math.round(r.ceiling.rps), ratio: Number(r.ratio.toFixed(3)),
  peregrine_p50_ms: r.peregrine.p50, peregrine_p99_ms: r.peregrine.p99, ceiling_p99_ms: r.ceiling.p99,
})), figures);
