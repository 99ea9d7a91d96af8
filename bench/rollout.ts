/**
 * Rollout engine benchmark on the Redis store (a private redis-server on a free port, the real server
 * as a child process).
 *
 *   node dist/bench/rollout.js [--fleet 100000] [--groups 10] [--devices 10000] [--waves 5] [--poll 1] [--smoke]
 *
 * 1. --fleet registered targets (created over the Management API, one DDI poll each), one release; a
 *    rollout over all of them in --groups groups: seconds from POST to `ready`, from `start` to the
 *    first group `running`, and to every action created (notstarted 0); Redis memory per target in
 *    the rollout (INFO used_memory after minus before the POST, over the targets);
 * 2. on a fresh server and Redis, --devices devices that answer at once (a lean in-process fleet over
 *    real HTTP: each polls every --poll seconds at its own offset, fetches its deployment and reports
 *    closed/success), a rollout in --waves groups with a 100 % success threshold: seconds from start
 *    to `finished`, against the lower bound the poll interval sets (each group's devices see their
 *    deployment at their next poll: waves x poll interval).
 * 3. (--only ramp, or with the others) a rollout of --ramp-targets targets in one group with
 *    `ramp.maxPerMinute` --ramp-rate: the release rate measured over --ramp-seconds once the first
 *    action is released (actions out of `scheduled` per minute, from the rollout's counts), against the
 *    configured one (issue 25: within 5 %).
 * Every answer is checked before it counts.
 */
import { Command } from 'commander';
import { request } from 'undici';
import { createClient } from 'redis';
import { answerDevice, Connection } from './lib/devices.js';
import { ADMIN_AUTH, api, createDevices, createReleaseAndAssign, pollEach, serverConfig, until, type Api } from './lib/fleet.js';
import { startRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--fleet <n>', 'registered targets in the large rollout', '100000')
  .option('--groups <n>', 'groups of the large rollout', '10')
  .option('--devices <n>', 'answering devices in the end-to-end rollout', '10000')
  .option('--waves <n>', 'groups of the end-to-end rollout', '5')
  .option('--poll <s>', 'polling interval of the answering devices (seconds)', '1')
  .option('--ramp-targets <n>', 'targets of the ramped rollout', '10000')
  .option('--ramp-rate <n>', 'its ramp.maxPerMinute', '6000')
  .option('--ramp-seconds <s>', 'how long its release rate is measured', '30')
  .option('--only <part>', 'run one part: large | answering | ramp')
  .option('--smoke', '300 targets in 3 groups, 50 devices in 2 groups: checks the benchmark, not the server')
  .parse()
  .opts<{
  fleet: string; groups: string; devices: string; waves: string; poll: string; rampTargets: string; rampRate: string; rampSeconds: string;
  only?: string; smoke?: boolean;
}>();
const SMOKE = o.smoke === true;
const FLEET = SMOKE ? 300 : Number(o.fleet);
const GROUPS = SMOKE ? 3 : Number(o.groups);
const DEVICES = SMOKE ? 50 : Number(o.devices);
const WAVES = SMOKE ? 2 : Number(o.waves);
const POLL_S = Number(o.poll);
const RAMP_TARGETS = SMOKE ? 300 : Number(o.rampTargets);
const RAMP_RATE = SMOKE ? 600 : Number(o.rampRate);
const RAMP_S = SMOKE ? 5 : Number(o.rampSeconds);

interface RolloutJson {
  id: number;
  status: string;
  totalTargets: number;
  totalTargetsPerStatus: Record<string, number>;
}

async function releaseId(a: Api): Promise<number> {
  const page = await a.get<{ content: { id: number }[] }>('/rest/v1/distributionsets?q=name==bench-release');
  const id = page.content[0]?.id;
  if (id === undefined) throw new Error('bench release not found');
  return id;
}

async function usedMemory(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    return Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? 0);
  } finally {
    await client.close();
  }
}

async function createRollout(a: Api, body: Record<string, unknown>): Promise<RolloutJson> {
  return (await a.post('/rest/v1/rollouts', body)) as RolloutJson;
}

/** Runs `work` on a fresh private Redis and a server on it, both stopped afterwards. */
async function onRedis<T>(work: (redis: { url: string }, server: { url: string }) => Promise<T>): Promise<T> {
  const redis = await startRedis();
  const server = await startServer(serverConfig('redis', redis.url)).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  try {
    return await work(redis, server);
  } finally {
    await server.stop();
    await redis.stop();
  }
}

async function largeRollout(): Promise<Record<string, number>> {
  return onRedis(async (redis, server) => {
    const a = api(server.url);
    process.stdout.write(`creating ${FLEET} targets and registering them ...\n`);
    const tokens = await createDevices(a, FLEET);
    await pollEach(server.url, tokens);
    await createReleaseAndAssign(a, 0);
    const ds = await releaseId(a);
    const before = await usedMemory(redis.url);
    const t0 = performance.now();
    const r = await createRollout(a, { name: 'large', distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: GROUPS });
    if (r.totalTargets !== FLEET) throw new Error(`rollout covers ${r.totalTargets} targets, expected ${FLEET}`);
    const postToReady = await until('ready', () => a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`), (x) => x.status === 'ready', t0);
    const t1 = performance.now();
    await a.post(`/rest/v1/rollouts/${r.id}/start`, {});
    const startToFirst = await until('first group running', () => a.get<{ content: { status: string }[] }>(`/rest/v1/rollouts/${r.id}/deploygroups?limit=1`),
      (p) => p.content[0]?.status === 'running', t1);
    const startToAll = await until('every action created', () => a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`),
      (x) => x.status === 'running' && x.totalTargetsPerStatus['notstarted'] === 0 && (x.totalTargetsPerStatus['scheduled'] ?? 0) <= FLEET - FLEET / GROUPS, t1);
    const after = await usedMemory(redis.url);
    return {
      'large rollout targets': FLEET, 'large rollout groups': GROUPS,
      'POST -> ready (s)': postToReady, 'start -> first group running (s)': startToFirst,
      'start -> every action created, first group started (s)': startToAll,
      'Redis bytes per target in the rollout': (after - before) / FLEET,
    };
  });
}

/** The lean fleet: every device polls each POLL_S at its own offset and answers its deployment at once. */
function fleet(base: string, tokens: readonly string[]): { stop(): Promise<void>; polls(): number; reports(): number } {
  const port = Number(new URL(base).port);
  const connections = Array.from({ length: 256 }, () => new Connection(port));
  let stopped = false;
  let polls = 0;
  let reports = 0;
  let failures = 0;
  const device = async (i: number): Promise<void> => {
    const outcome = await answerDevice(connections[i % connections.length] as Connection, tokens[i] as string, i);
    polls++;
    if (outcome === 'reported') reports++;
    else if (outcome === 'failed') failures++;
  };
  const loops = tokens.map((_, i) => (async () => {
    await new Promise((r) => setTimeout(r, (i / tokens.length) * POLL_S * 1000));
    while (!stopped) {
      const due = performance.now() + POLL_S * 1000;
      await device(i);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })());
  return {
    polls: () => polls,
    reports: () => reports,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      for (const c of connections) c.close();
      if (failures > 0) process.stdout.write(`fleet: ${failures} failed requests\n`);
    },
  };
}

async function answeringRollout(): Promise<Record<string, number>> {
  return onRedis(async (_redis, server) => {
    const a = api(server.url);
    process.stdout.write(`creating ${DEVICES} answering devices ...\n`);
    const tokens = await createDevices(a, DEVICES);
    const put = await request(`${server.url}/rest/v1/system/configs`, {
      method: 'PUT', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ pollingTime: `00:00:0${POLL_S}`, pollingOverdueTime: '00:00:05' }),
    });
    await put.body.dump();
    if (put.statusCode !== 200 && put.statusCode !== 204) throw new Error(`setting the polling time answered ${put.statusCode}`);
    await createReleaseAndAssign(a, 0);
    const ds = await releaseId(a);
    const r = await createRollout(a, {
      name: 'answering', distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: WAVES,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    await until('ready', () => a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`), (x) => x.status === 'ready', performance.now());
    const devices = fleet(server.url, tokens);
    await new Promise((res) => setTimeout(res, POLL_S * 1000 * 2)); // every device polled (registered) before the start
    const warm = devices.polls();
    await new Promise((res) => setTimeout(res, POLL_S * 1000 * 2));
    const polled = devices.polls();
    const idlePollRate = (polled - warm) / (POLL_S * 2);
    const t0 = performance.now();
    await a.post(`/rest/v1/rollouts/${r.id}/start`, {});
    // when each group started, had all its actions started (none scheduled) and finished, in seconds after the start
    const phases: Record<string, number> = {};
    const seconds = await until('finished', async () => {
      const groups = await a.get<{ content: { name: string; status: string; totalTargetsPerStatus: Record<string, number> }[] }>(`/rest/v1/rollouts/${r.id}/deploygroups?representation=full&limit=${WAVES}`);
      const at = (performance.now() - t0) / 1000;
      for (const g of groups.content) {
        const started = g.status === 'running' || g.status === 'finished' || g.status === 'error';
        if (started) phases[`${g.name} running at (s)`] ??= at;
        if (started && g.totalTargetsPerStatus['scheduled'] === 0 && g.totalTargetsPerStatus['notstarted'] === 0) {
          phases[`${g.name} actions started at (s)`] ??= at;
        }
        if (g.status === 'finished') phases[`${g.name} finished at (s)`] ??= at;
      }
      return a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`);
    }, (x) => x.status === 'finished', t0);
    const pollsDuring = devices.polls() - polled;
    await devices.stop();
    const reports = devices.reports();
    const done = await a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`);
    if (done.totalTargetsPerStatus['finished'] !== DEVICES) throw new Error(`finished ${JSON.stringify(done.totalTargetsPerStatus)}`);
    return {
      'answering devices': DEVICES, 'answering rollout groups': WAVES, 'poll interval (s)': POLL_S,
      'start -> finished (s)': seconds, 'lower bound: groups x poll interval (s)': WAVES * POLL_S,
      'device reports': reports, 'polls per second before the start (warm-up)': idlePollRate,
      'polls per second during the rollout': pollsDuring / seconds, ...phases,
    };
  });
}

async function rampRate(): Promise<Record<string, number>> {
  return onRedis(async (_redis, server) => {
    const a = api(server.url);
    process.stdout.write(`creating ${RAMP_TARGETS} targets for a ramp of ${RAMP_RATE} a minute ...\n`);
    await createDevices(a, RAMP_TARGETS);
    await createReleaseAndAssign(a, 0);
    const ds = await releaseId(a);
    const r = await createRollout(a, {
      name: 'ramp', distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: 1, ramp: { maxPerMinute: RAMP_RATE },
    });
    await until('ready', () => a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`), (x) => x.status === 'ready', performance.now());
    const released = async (): Promise<number> => {
      const c = (await a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`)).totalTargetsPerStatus;
      return (c['running'] ?? 0) + (c['finished'] ?? 0) + (c['error'] ?? 0) + (c['cancelled'] ?? 0);
    };
    await a.post(`/rest/v1/rollouts/${r.id}/start`, {});
    await until('first release', released, (n) => n > 0, performance.now());
    const t1 = performance.now();
    const n1 = await released();
    await new Promise((res) => setTimeout(res, RAMP_S * 1000)); // the measured interval
    const n2 = await released();
    const minutes = (performance.now() - t1) / 60_000;
    if (n2 >= RAMP_TARGETS) throw new Error(`every target was released within the ${RAMP_S} s measured: raise --ramp-targets or lower --ramp-rate`);
    const actual = (n2 - n1) / minutes;
    return {
      'ramp targets': RAMP_TARGETS, 'ramp configured (per minute)': RAMP_RATE, 'ramp measured over (s)': RAMP_S,
      'ramp actual (per minute)': actual, 'ramp actual / configured': actual / RAMP_RATE,
    };
  });
}

const figures = {
  ...(o.only === undefined || o.only === 'large' ? await largeRollout() : {}),
  ...(o.only === undefined || o.only === 'answering' ? await answeringRollout() : {}),
  ...(o.only === undefined || o.only === 'ramp' ? await rampRate() : {}),
};
writeResults('rollout', {
  fleet: FLEET, groups: GROUPS, devices: DEVICES, waves: WAVES, pollS: POLL_S, rampTargets: RAMP_TARGETS, rampRate: RAMP_RATE, smoke: SMOKE,
},
Object.entries(figures).map(([figure, value]) => ({ figure, value: Number.isInteger(value) ? value : Number(value.toFixed(3)) })));
