/**
 * Inputs of the capacity model (docs/capacity.md): Redis memory, commands and Redis CPU per
 * operation, for the real server (a child process, driven over HTTP only) on a Redis Cluster node
 * (a private one-master cluster: the per-key overhead of cluster mode included).
 *
 *   npm run bench -- capacity [--targets 10000] [--idle 10] [--census] [--redis-setting name=value ...]
 *
 * Each phase below runs in turn and is measured by INFO snapshots of the Redis node before and after
 * it: used_memory (bytes), total_commands_processed (every command Redis ran, those a script calls
 * included), the scripts run (EVALSHA), the main thread's CPU time (includes reading and answering
 * the commands) and the keys; and the server process's CPU time (/proc, 10 ms ticks). The idle
 * rate of commands and CPU (the dispatcher's reads, scheduler ticks, the slot-map watch), measured
 * first, is subtracted from every phase. Memory and command counts do not depend on the machine's
 * speed; CPU time does (see docs/capacity.md for how to read it).
 *
 * To measure another operation, append a Phase to PHASES: `run` does the operation over HTTP (through
 * `ctx`) and returns how many it did; the table gains a row with the figures per operation. The
 * rollout phases create a rollout of 10 groups over the fleet (per target), step through its groups
 * (per group step: the engine starts a tenth of the fleet's actions) and finish it from the devices.
 */
import { Command } from 'commander';
import { createClient } from 'redis';
import { request } from 'undici';
import { ADMIN_AUTH, api, createDevices, createReleaseAndAssign, pollEach, serverConfig, type Api } from './lib/fleet.js';
import { keyCensus } from './lib/key-census.js';
import { startRedis } from './lib/redis.js';
import { snapshot, topCalls } from './lib/redis-info.js';
import { writeResults } from './lib/results.js';
import { startServer, type BenchServer } from './lib/server.js';
import { cpuTicks, TICKS_PER_S } from './lib/wrk.js';

const o = new Command()
  .option('--targets <n>', 'devices in the fleet', '10000')
  .option('--idle <s>', 'seconds of idle server to measure the background rate', '10')
  .option('--census', 'after the first closed feedback and at the end, print every key shape: keys, MEMORY USAGE, encodings')
  .option('--redis-setting <name=value...>', 'a redis-server setting over the recommended ones, e.g. hash-max-listpack-value=64 (Redis\'s default)')
  .parse()
  .opts<{ targets: string; idle: string; census?: boolean; redisSetting?: string[] }>();
const REDIS_SETTINGS = Object.fromEntries((o.redisSetting ?? []).map((s) => {
  const at = s.indexOf('=');
  if (at <= 0) throw new Error(`--redis-setting wants name=value, got ${s}`);
  return [s.slice(0, at), s.slice(at + 1)];
}));
const TARGETS = Number(o.targets);
const IDLE_S = Number(o.idle);
const WORKERS = 32;

export interface Ctx {
  readonly redisUrl: string;
  readonly targets: number;
  server: BenchServer;
  readonly admin: () => Api;
  tokens: readonly string[];
  /** Action id per device index, once assigned. */
  actions: number[];
  /** The assigned set's module, which holds DOWNLOAD_FILE. */
  moduleId?: number;
  /** The rollout of the rollout phases. */
  rollout?: number;
  /** Status reads of the rollout the phases made (rolloutUntil): their Redis cost is taken off the phase's figures. */
  probes: number;
  /** A fresh server process on the same Redis (empty in-process caches). */
  restart(): Promise<void>;
}

export interface Phase {
  readonly name: string;
  /** Runs before the measurement (e.g. a round that fills the caches). */
  prepare?(ctx: Ctx): Promise<unknown>;
  /** Does the operation `ctx.targets` times (or so) over HTTP; returns how many it did. */
  run(ctx: Ctx): Promise<number>;
}

/** `n` calls of `fn(i)`, WORKERS at a time. */
async function each(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
}

async function ddi(ctx: Ctx, i: number, path = '', body?: unknown): Promise<string> {
  const res = await request(`${ctx.server.url}/DEFAULT/controller/v1/dev-${i}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `TargetToken ${ctx.tokens[i]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`dev-${i} ${path || 'poll'} answered ${res.statusCode}: ${text.slice(0, 200)}`);
  return text;
}

const DOWNLOAD_BYTES = 256 * 1024;
const RANGE_BYTES = 64 * 1024;
const DOWNLOAD_FILE = 'bench.bin';

/** Every device downloads DOWNLOAD_FILE once, whole or a RANGE_BYTES slice of it. */
async function downloadRound(ctx: Ctx, ranged = false): Promise<number> {
  const slices = DOWNLOAD_BYTES / RANGE_BYTES;
  await each(ctx.targets, async (i) => {
    const from = (i % slices) * RANGE_BYTES;
    const res = await request(`${ctx.server.url}/DEFAULT/controller/v1/dev-${i}/softwaremodules/${ctx.moduleId}/artifacts/${DOWNLOAD_FILE}`, {
      headers: { authorization: `TargetToken ${ctx.tokens[i]}`, ...(ranged ? { range: `bytes=${from}-${from + RANGE_BYTES - 1}` } : {}) },
    });
    const bytes = (await res.body.arrayBuffer()).byteLength;
    if (res.statusCode !== (ranged ? 206 : 200) || bytes !== (ranged ? RANGE_BYTES : DOWNLOAD_BYTES)) {
      throw new Error(`dev-${i}'s download answered ${res.statusCode} with ${bytes} bytes`);
    }
  });
  return ctx.targets;
}

/** Every device polls once. */
async function pollRound(ctx: Ctx): Promise<number> {
  await pollEach(ctx.server.url, ctx.tokens);
  return ctx.targets;
}

const feedback = (execution: string, finished: string, details: string) => ({
  status: { execution, result: { finished }, details: [details] },
});

const PHASES: readonly Phase[] = [
  {
    name: 'create target (Management API, arrays of 500)',
    async run(ctx) {
      ctx.tokens = await createDevices(ctx.admin(), ctx.targets);
      return ctx.targets;
    },
  },
  { name: 'first poll (registers the device, last poll written behind)', run: pollRound },
  {
    name: 'poll, cached (client-side cache hit, last poll written behind)',
    // the first poll changed each target (registered): one round reads them into the cache again
    prepare: pollRound,
    run: async (ctx) => (await pollRound(ctx)) + (await pollRound(ctx)),
  },
  {
    name: 'poll, cold cache (fresh server process)',
    async run(ctx) {
      await ctx.restart();
      return pollRound(ctx);
    },
  },
  {
    name: 'assign (one action per target, arrays of 1000)',
    async run(ctx) {
      const artifact = { baseUrl: ctx.server.url, bytes: Buffer.alloc(DOWNLOAD_BYTES, 7) };
      ctx.moduleId = (await createReleaseAndAssign(ctx.admin(), ctx.targets, artifact)).moduleId;
      return ctx.targets;
    },
  },
  {
    name: 'first poll after the assignment (reads the new action)',
    async run(ctx) {
      ctx.actions = new Array<number>(ctx.targets);
      await each(ctx.targets, async (i) => {
        const href = /deploymentBase\/(\d+)/.exec(await ddi(ctx, i))?.[1];
        if (href === undefined) throw new Error(`dev-${i} has no open action`);
        ctx.actions[i] = Number(href);
      });
      return ctx.targets;
    },
  },
  { name: 'poll with an open action, cached', run: pollRound },
  {
    name: `artifact download, whole ${DOWNLOAD_BYTES / 1024} KiB, first (adds the DOWNLOAD entry)`,
    run: (ctx) => downloadRound(ctx),
  },
  { name: 'artifact download, whole, the same file again (no entry)', run: (ctx) => downloadRound(ctx) },
  { name: `artifact download, ranged ${RANGE_BYTES / 1024} KiB`, run: (ctx) => downloadRound(ctx, true) },
  {
    name: 'feedback proceeding',
    async run(ctx) {
      await each(ctx.targets, async (i) => void (await ddi(ctx, i, `/deploymentBase/${ctx.actions[i]}/feedback`, feedback('proceeding', 'none', 'downloading'))));
      return ctx.targets;
    },
  },
  {
    name: 'feedback closed success (action finished, target in sync)',
    async run(ctx) {
      await each(ctx.targets, async (i) => void (await ddi(ctx, i, `/deploymentBase/${ctx.actions[i]}/feedback`, feedback('closed', 'success', 'installed'))));
      return ctx.targets;
    },
  },
  {
    name: 'rollout create over the fleet, 10 groups (per target; POST until ready)',
    async run(ctx) {
      const a = ctx.admin();
      const [sm] = (await a.post('/rest/v1/softwaremodules', [{ name: 'bench-fw', version: '2.0', type: 'bench-os' }])) as { id: number }[];
      const ds = (await a.post('/rest/v1/distributionsets', [
        { name: 'bench-release', version: '2.0', type: 'bench', modules: [{ id: sm!.id }] },
      ])) as { id: number }[];
      // success threshold 0: a group's successor starts as soon as it runs, so the step phase needs no devices
      const created = (await a.post('/rest/v1/rollouts', {
        name: 'capacity', distributionSetId: ds[0]!.id, targetFilterQuery: 'controllerid==dev-*', amountGroups: 10,
        successCondition: { condition: 'THRESHOLD', expression: '0' },
      })) as { id: number };
      ctx.rollout = created.id;
      await rolloutUntil(ctx, (r) => r.status === 'ready');
      return ctx.targets;
    },
  },
  {
    // per target it starts: each of the 10 group steps creates a tenth of the fleet's actions scheduled and starts them
    name: 'rollout group step, per target it starts (action created scheduled, then started)',
    async run(ctx) {
      await ctx.admin().post(`/rest/v1/rollouts/${ctx.rollout}/start`, undefined);
      // every group started and every action of the rollout out of scheduled. Right after the start the
      // rollout is still 'starting', its groups 'ready' and no action exists yet (all 'notstarted', none
      // 'scheduled'): the rollout must run, no group may wait, and every target must have a started action.
      await rolloutUntil(ctx, (r, groups) =>
        r.status === 'running' && groups.every((g) => g.status === 'running' || g.status === 'finished') &&
        r.totalTargetsPerStatus?.scheduled === 0 && r.totalTargetsPerStatus.notstarted === 0);
      return ctx.targets;
    },
  },
  {
    name: 'feedback closed success of a rollout action (group counters)',
    async prepare(ctx) {
      const missing: number[] = [];
      await each(ctx.targets, async (i) => {
        const id = /deploymentBase\/(\d+)/.exec(await ddi(ctx, i))?.[1];
        if (id === undefined) missing.push(i);
        else ctx.actions[i] = Number(id);
      });
      if (missing.length > 0) {
        // the rollout says every action started: a device not offered its action is a stale read somewhere
        const i = missing[0]!;
        const res = await request(`${ctx.server.url}/rest/v1/targets/dev-${i}/actions`, {
          headers: { authorization: ADMIN_AUTH },
        });
        throw new Error(`${missing.length} devices not offered their rollout action, e.g. dev-${i}; its actions: ${await res.body.text()}`);
      }
    },
    async run(ctx) {
      await each(ctx.targets, async (i) => void (await ddi(ctx, i, `/deploymentBase/${ctx.actions[i]}/feedback`, feedback('closed', 'success', 'installed'))));
      await rolloutUntil(ctx, (r) => r.status === 'finished');
      return ctx.targets;
    },
  },
];

/** Waits until the rollout and its groups (read over the Management API) satisfy `ok`. */
interface RolloutRead {
  readonly status: string;
  readonly totalTargetsPerStatus?: Readonly<Record<string, number>>;
}

async function rolloutUntil(ctx: Ctx, ok: (r: RolloutRead, groups: { status: string }[]) => boolean): Promise<void> {
  for (const end = Date.now() + 600_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const [r, groups] = await readRollout(ctx);
    if (ok(r, groups)) return;
  }
  throw new Error(`rollout ${ctx.rollout} did not reach the awaited state within 10 minutes`);
}

/** One status read of the rollout and its groups over the Management API (counted in ctx.probes). */
async function readRollout(ctx: Ctx): Promise<[RolloutRead, { status: string }[]]> {
  const a = ctx.admin();
  ctx.probes++;
  const r = await a.get<RolloutRead>(`/rest/v1/rollouts/${ctx.rollout}`);
  const groups = (await a.get<{ content: { status: string }[] }>(`/rest/v1/rollouts/${ctx.rollout}/deploygroups?limit=500`)).content;
  return [r, groups];
}

/** What one status read of the rollout costs Redis, from PROBE_SAMPLES reads measured on their own. */
const PROBE_SAMPLES = 5;

interface ProbeCost {
  readonly commands: number;
  readonly cpuS: number;
  readonly calls: ReadonlyMap<string, number>;
}

async function probeCost(ctx: Ctx, redis: ReturnType<typeof createClient>): Promise<ProbeCost> {
  const from = await snapshot(redis);
  for (let i = 0; i < PROBE_SAMPLES; i++) await readRollout(ctx);
  const to = await snapshot(redis);
  const calls = new Map<string, number>();
  for (const [name, n] of to.calls) calls.set(name, (n - (from.calls.get(name) ?? 0)) / PROBE_SAMPLES);
  return { commands: (to.commands - from.commands) / PROBE_SAMPLES, cpuS: (to.cpuS - from.cpuS) / PROBE_SAMPLES, calls };
}

const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

/** Where the bytes are: every key shape with its bytes per device (`--census`). */
async function printCensus(redis: ReturnType<typeof createClient>, devices: number): Promise<void> {
  const groups = await keyCensus(redis);
  console.log(`census: ${groups.reduce((n, g) => n + g.bytes, 0) / devices} bytes per device in MEMORY USAGE over ${groups.reduce((n, g) => n + g.keys, 0)} keys`);
  for (const g of groups) console.log(JSON.stringify({ ...g, 'bytes per device': round(g.bytes / devices, 1), 'bytes per key': Math.round(g.bytes / g.keys) }));
}

async function main(): Promise<void> {
  const redis = await startRedis({ cluster: true, settings: REDIS_SETTINGS });
  const admin = createClient({ url: redis.url });
  await admin.connect();
  // the shared bench config, with the store on the cluster node
  const config = serverConfig('redis').replace(/store: \{[^}]*\}/, `store: { kind: redis, redisCluster: ['${redis.url}'] }`);
  if (!config.includes('redisCluster')) throw new Error('serverConfig no longer has a store line this bench can point at the cluster');
  const empty = await snapshot(admin);
  const ctx: Ctx = {
    redisUrl: redis.url,
    targets: TARGETS,
    server: await startServer(config),
    admin: () => api(ctx.server.url),
    tokens: [],
    actions: [],
    probes: 0,
    async restart() {
      await ctx.server.stop();
      ctx.server = await startServer(config);
    },
  };
  const rows: Record<string, unknown>[] = [];
  const figures: Record<string, number> = {};
  try {
    await new Promise((r) => setTimeout(r, 2000)); // startup work settles
    const idleFrom = await snapshot(admin);
    const idleTicks = cpuTicks(ctx.server.pid) ?? NaN;
    figures['tenant and server bootstrap: Redis bytes'] = idleFrom.memory - empty.memory;
    figures['tenant and server bootstrap: keys'] = idleFrom.keys - empty.keys;
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idleTo = await snapshot(admin);
    const idleS = (idleTo.at - idleFrom.at) / 1000;
    const serverIdleCpu = ((cpuTicks(ctx.server.pid) ?? NaN) - idleTicks) / TICKS_PER_S / idleS;
    const background = {
      commands: (idleTo.commands - idleFrom.commands) / idleS,
      scripts: (idleTo.scripts - idleFrom.scripts) / idleS,
      cpuS: (idleTo.cpuS - idleFrom.cpuS) / idleS,
    };
    figures['idle server: commands run/s'] = round(background.commands, 2);
    figures['idle server: scripts/s'] = round(background.scripts, 2);
    figures['idle server: Redis CPU µs/s'] = round(background.cpuS * 1e6, 0);
    figures['idle server: server CPU µs/s'] = round(serverIdleCpu * 1e6, 0);
    console.log(`idle: ${figures['idle server: commands run/s']} commands/s, ${topCalls(idleFrom, idleTo, idleS)} per second`);

    for (const phase of PHASES) {
      await phase.prepare?.(ctx);
      const probesBefore = ctx.probes;
      const before = await snapshot(admin);
      const server = { pid: ctx.server.pid, ticks: cpuTicks(ctx.server.pid) ?? NaN };
      const count = await phase.run(ctx);
      await new Promise((r) => setTimeout(r, 1500)); // the write-behind flush and effects of the last requests land
      const after = await snapshot(admin);
      // the server process's CPU (a phase that restarts it has none to compare)
      const serverTicks = ctx.server.pid === server.pid ? (cpuTicks(server.pid) ?? NaN) - server.ticks : NaN;
      // the phase's own status reads of the rollout (rolloutUntil, every 100 ms: more on a slower machine) are not its cost
      const probes = ctx.probes - probesBefore;
      const probe: ProbeCost = probes === 0 ? { commands: 0, cpuS: 0, calls: new Map() } : await probeCost(ctx, admin);
      const probeCalls = new Map([...probe.calls].map(([name, n]) => [name, n * probes]));
      const seconds = (after.at - before.at) / 1000;
      const commands = after.commands - before.commands - background.commands * seconds - probe.commands * probes;
      const scripts = after.scripts - before.scripts - background.scripts * seconds - (probe.calls.get('evalsha') ?? 0) * probes;
      const cpuS = after.cpuS - before.cpuS - background.cpuS * seconds - probe.cpuS * probes;
      const row = {
        phase: phase.name,
        operations: count,
        'Redis bytes/op': round((after.memory - before.memory) / count, 0),
        'keys/op': round((after.keys - before.keys) / count, 2),
        'commands run/op': round(commands / count, 2),
        'scripts/op': round(scripts / count, 2),
        'Redis CPU µs/op': round((cpuS * 1e6) / count, 1),
        'server CPU µs/op': round(((serverTicks / TICKS_PER_S - serverIdleCpu * seconds) * 1e6) / count, 0),
        'tracked keys': after.tracked,
        'calls/op (incl. inside scripts)': topCalls(before, after, count, probeCalls),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
      if (probes > 0) console.log(`  ${probes} status reads of the rollout taken off: ${round(probe.commands, 1)} commands each`);
      if (phase.name.startsWith('rollout group step')) console.log(`  every command per target: ${topCalls(before, after, count, probeCalls, true)}`);
      if (o.census === true && phase.name.startsWith('feedback closed success (')) await printCensus(admin, ctx.targets);
    }
    if (o.census === true) await printCensus(admin, ctx.targets);
    const end = await snapshot(admin);
    figures['Redis bytes per device (all phases, one finished action)'] = round((end.memory - idleFrom.memory) / TARGETS, 0);
    figures['keys per device'] = round((end.keys - idleFrom.keys) / TARGETS, 2);
    figures['tracking table keys at the end'] = end.tracked;
  } finally {
    await ctx.server.stop().catch(() => undefined);
    await admin.close();
    await redis.stop();
  }
  writeResults('capacity', { targets: TARGETS, idleS: IDLE_S, store: 'redis cluster (one master, all slots)', redisSettings: REDIS_SETTINGS }, rows, figures);
}

await main();
