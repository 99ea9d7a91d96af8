/**
 * The DDI benchmark: what the server answers per second against the hardware ceiling measured in the
 * same run with the same generator. The ceiling is a uWebSockets.js hello-world (own process)
 * answering the bytes peregrine answers (status, ETag, body); the generator is wrk (bench/lib/wrk.ts),
 * cycling through per-device paths with each device's TargetToken.
 *
 *   node dist/bench/ddi.js [--devices 100000] [--duration 3] [--rounds 3] [--connections 64] [--stores memory,redis]
 *                          [--workers N] [--smoke] [--only deploymentBase,download,...] [--cpu-prof DIR]
 *
 * The production path: the tenant's default settings (per-device poll limiter on, minPollingTime
 * 30 s), enough devices cycled (100,000) that none is throttled; every answer must be 2xx/3xx.
 * Per store: the poll with no open action, the same as 304 (If-None-Match with the device's ETag),
 * the poll with an open action; on Redis also deploymentBase, feedback (POST) and artifact downloads
 * (whole and ranged, 100 connections), and memory per registered target (server process, Redis; the
 * server's RSS also after a full GC through its inspector).
 * Each figure is the median, min and max of alternating rounds (peregrine, ceiling, peregrine, ...);
 * the ratio is the median of the per-round ratios. The poll rows also give the p99 latency of both at
 * half of peregrine's maximum. The generator check says how busy wrk was and what the ceiling reaches
 * with the cheapest wrk set-up (no script) and with two wrk threads.
 * --workers N (N > 1, Redis only): the no-open-action poll again, on a second server with N event
 * loops (server.workers) beside the 1-loop one, both against an N-thread ceiling (N hello-world
 * loops on one port): "poll 1 loop vs N loops vs N-thread ceiling". Off by default (time).
 * --smoke: 300 devices, minPollingTime 0 (so few devices are not throttled), 1 s rounds; for the tests.
 * --only WORDS: only the rows whose name contains one of the comma-separated words: `--only deploymentBase`
 * that row, `--only download` the two download rows; Redis alone when no word names a poll row (`poll`), and no
 * generator check unless a word is `generator`. The set-up (fleet, release, polls) stays the same.
 * --cpu-prof DIR: the server runs with node --cpu-prof, its profile written to DIR when it stops.
 */
import { Command } from 'commander';
import { createClient } from 'redis';
import { request } from 'undici';
import { startCeiling } from './lib/ceiling.js';
import { api, createDevices, createReleaseAndAssign, pollAll, pollRequests, serverConfig } from './lib/fleet.js';
import { collectGarbage } from './lib/inspector.js';
import { freePort, startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer, type BenchServer } from './lib/server.js';
import { median, stats, type Stats } from './lib/stats.js';
import { wrk, type WrkRequest, type WrkResult } from './lib/wrk.js';

const o = new Command()
  .option('--devices <n>', 'registered devices, all cycled through by the load', '100000')
  .option('--duration <s>', 'seconds per measured round', '3')
  .option('--rounds <n>', 'alternating peregrine/ceiling rounds per row', '3')
  .option('--connections <n>', 'connections of the poll load (downloads use 100)', '64')
  .option('--stores <list>', 'memory,redis or one of them', 'memory,redis')
  .option('--workers <n>', 'also measure the poll on Redis with a server of n event loops against an n-thread ceiling', '1')
  .option('--smoke', '300 devices, 1 s rounds, one round, minPollingTime 0: checks the harness, not the server')
  .option('--only <words>', 'only the rows whose name contains one of these words, comma-separated (deploymentBase, feedback, download, poll, generator)')
  .option('--cpu-prof <dir>', 'run the server with node --cpu-prof, writing its profile to this directory')
  .parse()
  .opts<{
  devices: string; duration: string; rounds: string; connections: string; stores: string; workers: string; smoke?: boolean;
  only?: string; cpuProf?: string;
}>();
const ONLY = o.only?.split(',').map((w) => w.trim()).filter((w) => w !== '');
/** The row is measured in this run (--only). */
const wanted = (row: string): boolean => ONLY === undefined || ONLY.some((w) => row.includes(w));
/** --only names no poll row: the rows left run on Redis alone. */
const REDIS_ROWS_ONLY = ONLY !== undefined && !wanted('poll, no open action, 304 (If-None-Match), open action, generator check');
const SMOKE = o.smoke === true;
const DEVICES = SMOKE ? 300 : Number(o.devices);
const DURATION = SMOKE ? 1 : Number(o.duration);
const ROUNDS = SMOKE ? 1 : Number(o.rounds);
const CONNECTIONS = Number(o.connections);
const WORKERS = Number(o.workers);
const DOWNLOAD_CONNECTIONS = SMOKE ? 10 : 100;
const ARTIFACT_BYTES = SMOKE ? 64 * 1024 : 1024 * 1024;
const RANGE_BYTES = SMOKE ? 16 * 1024 : 64 * 1024;
const STORES = REDIS_ROWS_ONLY ? ['redis' as const] : o.stores.split(',').map((s) => s.trim()).filter((s): s is 'memory' | 'redis' => s === 'memory' || s === 'redis');
const TENANT = 'DEFAULT';
// the production defaults but the token switch; the smoke run lifts the limiter (300 devices at full rate)
const SETTINGS = SMOKE ? undefined : { 'authentication.targettoken.enabled': 'true' };

interface Row {
  readonly row: string;
  readonly store: string;
  readonly peregrine: Stats;
  readonly ceiling: Stats;
  readonly ratio: number;
  readonly ratios: readonly number[];
  readonly mbPerS: number | undefined;
  readonly p99AtMax: number;
  readonly wrkCpu: number;
  readonly serverCpu: number;
  readonly half?: {
    readonly rate: number; readonly peregrineP99: number; readonly ceilingP99: number;
    readonly peregrineRps: number; readonly ceilingRps: number;
  };
}

const rows: Row[] = [];
const figures: Record<string, number | string> = {};
const notes: string[] = [];
/** wrk's CPU in every run against a ceiling (the generator check). */
const ceilingWrkCpu: number[] = [];

const STATUS_TEXT: Readonly<Record<number, string>> = { 200: 'OK', 204: 'No Content', 206: 'Partial Content', 304: 'Not Modified' };

/** Alternating rounds of the same wrk load against peregrine and a ceiling answering peregrine's bytes. */
async function compare(
  row: string, store: string, server: BenchServer, requests: readonly WrkRequest[],
  options: {
    readonly connections?: number; readonly halfRate?: boolean; readonly expect: number; readonly bytes?: boolean;
    /** Event loops of the ceiling (worker threads on one port); default 1. */
    readonly ceilingThreads?: number;
  },
): Promise<Row> {
  const connections = options.connections ?? CONNECTIONS;
  const first = requests[0]!;
  const sample = await request(server.url + first.path, { method: (first.method ?? 'GET') as 'GET', headers: { ...first.headers }, body: first.body ?? null });
  const body = Buffer.from(await sample.body.arrayBuffer());
  if (sample.statusCode !== options.expect) throw new Error(`${row}: expected ${options.expect}, the sample answered ${sample.statusCode}: ${body.toString().slice(0, 200)}`);
  const headers: Record<string, string> = {};
  for (const name of ['etag', 'content-range', 'accept-ranges', 'content-disposition', 'last-modified']) {
    const v = sample.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  const ceiling = await startCeiling(body, String(sample.headers['content-type'] ?? 'application/json'), {
    status: `${sample.statusCode} ${STATUS_TEXT[sample.statusCode] ?? 'OK'}`, headers, threads: options.ceilingThreads,
  });
  try {
    const load = (url: string, pid: number, rate?: number): Promise<WrkResult> =>
      wrk({ url, requests, connections, durationS: DURATION, ...(rate ? { rate } : {}) }, pid);
    const ours = (rate?: number): Promise<WrkResult> => load(server.url, server.pid, rate).then((r) => {
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${row}: ${r.non2xx} answers outside 2xx/3xx and ${r.errors} errors of ${r.requests}`);
      return r;
    });
    const theirs = (rate?: number): Promise<WrkResult> => load(ceiling.url, ceiling.pid, rate);
    // warm-up (JIT, caches, connections): a second each, then on peregrine long enough that every device is
    // requested twice (at most 10 s): a device's first polls make what the lane keeps for it, and the rounds
    // measure the steady state, not the first round's share of first requests (wrk starts each run at device 0)
    const warm = await wrk({ url: server.url, requests, connections, durationS: 1 });
    const fleetS = Math.min(10, Math.ceil((2 * requests.length) / Math.max(1, warm.rps)));
    if (!SMOKE && fleetS > 1) await wrk({ url: server.url, requests, connections, durationS: fleetS });
    await wrk({ url: ceiling.url, requests, connections, durationS: 1 });
    const ps: WrkResult[] = [];
    const cs: WrkResult[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ps.push(await ours());
      cs.push(await theirs());
    }
    cs.forEach((c) => ceilingWrkCpu.push(c.generatorCpu));
    const ratios = ps.map((p, i) => Number((p.rps / cs[i]!.rps).toFixed(3)));
    let result: Row = {
      row, store, peregrine: stats(ps.map((p) => p.rps)), ceiling: stats(cs.map((c) => c.rps)), ratio: median(ratios), ratios,
      mbPerS: options.bytes === true ? Number((median(ps.map((p) => p.bytesPerS)) / 2 ** 20).toFixed(1)) : undefined,
      p99AtMax: median(ps.map((p) => p.p99)), wrkCpu: Math.max(...ps.map((p) => p.generatorCpu)),
      serverCpu: median(ps.map((p) => p.serverCpu ?? NaN)),
    };
    console.log(`${row} (${store}): peregrine ${result.peregrine.median} req/s, ceiling ${result.ceiling.median} req/s, ratio ${result.ratio} (rounds ${ratios.join(' ')}); `
      + `wrk CPU ${ps.map((p) => p.generatorCpu).join('/')} vs ceiling ${cs.map((c) => c.generatorCpu).join('/')}, server CPU ${ps.map((p) => p.serverCpu).join('/')}`);
    if (options.halfRate === true) {
      const rate = Math.round(result.peregrine.median / 2);
      // wrk paces with a think time per connection, so latency lowers the rate it achieves: a short
      // run at the nominal rate tells how much to offer on each side to achieve `rate`
      const calibrate = async (url: string, pid: number): Promise<number> => {
        const r = await wrk({ url, requests, connections, durationS: Math.min(DURATION, 2), rate }, pid);
        return Math.round(rate * Math.min(2, rate / Math.max(1, r.rps)));
      };
      const [po, co] = [await calibrate(server.url, server.pid), await calibrate(ceiling.url, ceiling.pid)];
      const hp: WrkResult[] = [];
      const hc: WrkResult[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        hp.push(await ours(po));
        hc.push(await theirs(co));
      }
      result = {
        ...result,
        half: {
          rate, peregrineP99: median(hp.map((h) => h.p99)), ceilingP99: median(hc.map((h) => h.p99)),
          peregrineRps: median(hp.map((h) => h.rps)), ceilingRps: median(hc.map((h) => h.rps)),
        },
      };
      console.log(`  at half (${rate} req/s offered; achieved ${result.half!.peregrineRps} / ${result.half!.ceilingRps}): p99 peregrine ${result.half!.peregrineP99} ms, ceiling ${result.half!.ceilingP99} ms`);
    }
    rows.push(result);
    return result;
  } finally {
    await ceiling.stop();
  }
}

/** What the ceiling reaches with the measuring set-up, with wrk at its cheapest, and with two wrk threads. */
async function generatorCheck(server: BenchServer, requests: readonly WrkRequest[]): Promise<void> {
  const sample = await request(server.url + requests[0]!.path, { headers: { ...requests[0]!.headers } });
  const body = Buffer.from(await sample.body.arrayBuffer());
  const ceiling = await startCeiling(body, String(sample.headers['content-type']), { headers: { etag: String(sample.headers['etag']) } });
  try {
    const runs: [string, WrkResult][] = [];
    for (const [label, opts] of [
      ['wrk 1 thread, Lua script cycling the devices (the measuring set-up)', { requests, threads: 1 }],
      ['wrk 1 thread, no script (one path)', { threads: 1 }],
      ['wrk 2 threads, no script (one path)', { threads: 2 }],
    ] as const) {
      const r = await wrk({ url: ceiling.url + requests[0]!.path, connections: CONNECTIONS, durationS: DURATION, ...opts }, ceiling.pid);
      runs.push([label, r]);
    }
    const best = Math.max(...runs.map(([, r]) => r.rps));
    for (const [label, r] of runs) {
      notes.push(`generator check, ceiling under ${label}: ${r.rps} req/s (${(r.rps / best).toFixed(2)} of the best), wrk CPU ${r.generatorCpu} cores, ceiling CPU ${r.serverCpu}`);
    }
    figures['generator check: ceiling req/s, best generator here'] = best;
  } finally {
    await ceiling.stop();
  }
}

/** The poll on 1 loop (`one`) and on a second server with WORKERS loops on the same Redis, both against a WORKERS-thread ceiling. */
async function compareLoops(one: BenchServer, redis: BenchRedis, tokens: readonly string[]): Promise<void> {
  const many = await startServer(serverConfig('redis', redis.url, SETTINGS), { PEREGRINE_WORKERS: String(WORKERS) });
  try {
    // each loop has its own poll cache and the kernel spreads connections over the loops, so every loop
    // sees every device: cycle them all a few times first, as the 1-loop server was by the rows before
    const warmS = Math.max(1, Math.ceil(DEVICES / 5000));
    await wrk({ url: many.url, requests: pollRequests(tokens), connections: CONNECTIONS, durationS: warmS });
    const opts = { expect: 200, ceilingThreads: WORKERS };
    const a = await compare('poll, no open action, 1 loop', `redis vs ${WORKERS}-thread ceiling`, one, pollRequests(tokens), opts);
    const b = await compare(`poll, no open action, ${WORKERS} loops`, `redis vs ${WORKERS}-thread ceiling`, many, pollRequests(tokens), opts);
    const line = `poll (redis): 1 loop ${a.peregrine.median} req/s, ${WORKERS} loops ${b.peregrine.median} req/s, `
      + `${WORKERS}-thread ceiling ${median([a.ceiling.median, b.ceiling.median])} req/s (wrk CPU ${a.wrkCpu} / ${b.wrkCpu} cores)`;
    console.log(line);
    notes.push(line);
    figures[`redis: poll req/s, ${WORKERS} loops / 1 loop`] = Number((b.peregrine.median / a.peregrine.median).toFixed(2));
  } finally {
    await many.stop();
  }
}

async function redisUsedMemory(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    return Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? NaN);
  } finally {
    await client.close();
  }
}

for (const store of STORES) {
  let redis: BenchRedis | undefined;
  if (store === 'redis') redis = await startRedis();
  // the inspector only for the full GCs around the memory figure; no session is open otherwise
  const inspectPort = await freePort();
  const server = await startServer(
    serverConfig(store, redis?.url, SETTINGS), {},
    [...(o.cpuProf === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', o.cpuProf]), `--inspect=127.0.0.1:${inspectPort}`],
  );
  try {
    const rssBefore = server.rss();
    const redisBefore = redis ? await redisUsedMemory(redis.url) : 0;
    let t = performance.now();
    const tokens = await createDevices(api(server.url), DEVICES);
    const created = performance.now() - t;
    t = performance.now();
    const first = await pollAll(server.url, tokens);
    console.log(`${store}: created ${DEVICES} targets in ${(created / 1000).toFixed(1)} s, registered (one poll each) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    // the steady state a fleet polls in: on Redis the first poll after registration reads what the
    // registration changed, the second finds everything in the poll cache
    await pollAll(server.url, tokens);
    await new Promise((r) => setTimeout(r, 1500)); // the poll write-behind flushes
    figures[`${store}: server RSS per registered target (bytes)`] = Math.round((server.rss() - rssBefore) / DEVICES);
    figures[`${store}: server RSS with ${DEVICES} registered targets (MiB)`] = Math.round(server.rss() / 2 ** 20);
    // the same after a full GC, without the young generation's garbage (npm start's --max-semi-space-size=64
    // lets a semi-space grow to 64 MiB): what the devices hold. No GC before the first sample, so the rows above
    // compare with earlier runs; the idle sample carries the server's start-up garbage, so this one is a lower bound.
    await collectGarbage(inspectPort);
    figures[`${store}: server RSS per registered target after a full GC (bytes; a lower bound)`] = Math.round((server.rss() - rssBefore) / DEVICES);
    figures[`${store}: server RSS with ${DEVICES} registered targets after a full GC (MiB)`] = Math.round(server.rss() / 2 ** 20);
    if (redis) figures['redis: Redis used_memory per registered target (bytes)'] = Math.round(((await redisUsedMemory(redis.url)) - redisBefore) / DEVICES);

    if (store === STORES[0] && wanted('generator check')) await generatorCheck(server, pollRequests(tokens));
    if (wanted('poll, no open action')) await compare('poll, no open action', store, server, pollRequests(tokens), { halfRate: true, expect: 200 });
    if (wanted('poll, no open action, 304 (If-None-Match)')) {
      await compare('poll, no open action, 304 (If-None-Match)', store, server, pollRequests(tokens, first.etags), { expect: 304 });
    }
    if (store === 'redis' && WORKERS > 1 && wanted('poll, no open action, 1 loop')) await compareLoops(server, redis!, tokens);

    t = performance.now();
    const artifact = store === 'redis' ? { baseUrl: server.url, bytes: Buffer.alloc(ARTIFACT_BYTES, 7) } : undefined;
    const { moduleId } = await createReleaseAndAssign(api(server.url), DEVICES, artifact);
    const open = await pollAll(server.url, tokens);
    await pollAll(server.url, tokens); // steady state, as above
    console.log(`${store}: assigned a release to ${DEVICES} targets and polled each in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (wanted('poll, open action')) await compare('poll, open action', store, server, pollRequests(tokens), { halfRate: true, expect: 200 });
    if (store !== 'redis') continue;

    const deployment = open.bodies.map((b, i) => {
      const href = /"deploymentBase":\{"href":"([^"]+)"/.exec(b)?.[1];
      if (href === undefined) throw new Error(`dev-${i} has no deploymentBase link: ${b}`);
      return new URL(href).pathname + new URL(href).search;
    });
    const auth = (i: number) => ({ Authorization: `TargetToken ${tokens[i]}` });
    if (wanted('deploymentBase')) {
      // the steady state devices fetch in: a device's first fetch records `retrieved` (a write), its second keeps
      // the reply the express lane answers from; both made here, so that the rounds measure later fetches
      for (let pass = 0; pass < 2; pass++) {
        await Promise.all(Array.from({ length: 16 }, async (_, w) => {
          for (let i = w; i < deployment.length; i += 16) {
            const res = await request(server.url + deployment[i]!, { headers: auth(i) });
            await res.body.dump();
            if (res.statusCode !== 200) throw new Error(`deploymentBase of dev-${i}: ${res.statusCode}`);
          }
        }));
      }
      await compare('deploymentBase', store, server, deployment.map((path, i) => ({ path, headers: auth(i) })), { expect: 200 });
    }
    const feedback = JSON.stringify({ status: { execution: 'proceeding', result: { finished: 'none' }, details: ['bench'] } });
    if (wanted('feedback (POST proceeding)')) {
      await compare('feedback (POST proceeding)', store, server, deployment.map((path, i) => ({
        method: 'POST', path: path.replace(/\?.*$/, '/feedback'), headers: { ...auth(i), 'Content-Type': 'application/json' }, body: feedback,
      })), { expect: 200 });
    }
    const file = `/${TENANT}/controller/v1/dev-%/softwaremodules/${moduleId}/artifacts/bench.bin`;
    const download = (i: number): string => file.replace('%', String(i));
    const whole = `artifact download, whole (${ARTIFACT_BYTES / 1024} KiB)`;
    if (wanted(whole)) {
      const requests = tokens.map((_, i) => ({ path: download(i), headers: auth(i) }));
      await compare(whole, store, server, requests, { connections: DOWNLOAD_CONNECTIONS, expect: 200, bytes: true });
    }
    const slices = ARTIFACT_BYTES / RANGE_BYTES;
    const ranged = `artifact download, ranged (${RANGE_BYTES / 1024} KiB)`;
    if (wanted(ranged)) {
      await compare(ranged, store, server, tokens.map((_, i) => {
        const from = (i % slices) * RANGE_BYTES;
        return { path: download(i), headers: { ...auth(i), Range: `bytes=${from}-${from + RANGE_BYTES - 1}` } };
      }), { connections: DOWNLOAD_CONNECTIONS, expect: 206, bytes: true });
    }
  } finally {
    await server.stop();
    await redis?.stop();
  }
}

const wrkBusy = Math.max(...ceilingWrkCpu);
notes.push(`generator check: wrk's CPU while loading the ceiling was at most ${wrkBusy} cores (1 thread; >= 0.9 means wrk, not the ceiling, set the pace)`);
figures['generator check: wrk CPU max against the ceiling (cores)'] = wrkBusy;

writeResults('ddi', { devices: DEVICES, duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS, downloadConnections: DOWNLOAD_CONNECTIONS, stores: STORES, smoke: SMOKE }, rows.map((r) => ({
  row: r.row, store: r.store,
  'peregrine req/s': r.peregrine.median, 'p. min': r.peregrine.min, 'p. max': r.peregrine.max,
  'ceiling req/s': r.ceiling.median, 'c. min': r.ceiling.min, 'c. max': r.ceiling.max,
  ratio: r.ratio, 'round ratios': r.ratios.join(' '),
  'MB/s': r.mbPerS ?? '',
  'p99 ms at max': r.p99AtMax,
  'half rate /s': r.half?.rate ?? '', 'p99 ms at half': r.half?.peregrineP99 ?? '', 'ceiling p99 ms at half': r.half?.ceilingP99 ?? '',
  'server CPU': r.serverCpu, 'wrk CPU': r.wrkCpu,
})), figures, notes);
