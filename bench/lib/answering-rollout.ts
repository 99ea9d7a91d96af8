/**
 * Rollouts end to end with a fleet that answers: the real server (child process) on the memory store or
 * a private Redis, and the bundled simulator as a third process driving `devices` devices that poll every
 * `pollS` seconds (no jitter, first polls spread over one interval) and answer a deployment at once
 * (deploymentBase, proceeding, closed/success; no artifact, no install time). Once every device has
 * polled, `rounds` rollouts run one after another over the same fleet, each a new release in `waves`
 * groups with a 100 % success threshold: seconds from `start` to `finished`, when each group ran, had
 * all its actions started and finished, and the CPU the server, the fleet (and Redis) used meanwhile.
 */
import type { Report } from '../../simulator/report.js';
import { api, serverConfig, until, type Api } from './fleet.js';
import { startRedis, usedMemory, type BenchRedis } from './redis.js';
import { startServer, type BenchServer } from './server.js';
import { startFleetProcess, type FleetProcess } from './sim-process.js';
import { cpuTicks } from './wrk.js';

export interface AnsweringOptions {
  readonly store: 'memory' | 'redis';
  readonly devices: number;
  readonly waves: number;
  readonly pollS: number;
  readonly rounds: number;
  /** How often the benchmark reads the rollout and its groups (ms): the resolution of the times. */
  readonly observeMs: number;
  /** Extra Node.js flags for the server (a profile: --cpu-prof). */
  readonly serverArgs?: readonly string[];
}

/** One group's times, seconds after the rollout's start. */
export interface GroupTimes {
  readonly name: string;
  readonly runningAt: number;
  /** Every action of the group out of `scheduled` (started). */
  readonly startedAt: number;
  /** Every action of the group finished (its counts), which the engine has yet to see. */
  readonly actionsDoneAt: number;
  /** The group `finished` (the engine's step; it starts the next group first). */
  readonly finishedAt: number;
}

export interface RoundResult {
  /** Seconds from the start request to the rollout `finished`. */
  readonly seconds: number;
  readonly groups: readonly GroupTimes[];
  /** CPU seconds used from the start to finished. */
  readonly serverCpuS: number;
  readonly fleetCpuS: number;
  readonly redisCpuS?: number;
  /** Highest server RSS seen while the rollout ran (bytes). */
  readonly serverRssMax: number;
  /** Redis used_memory before the rollout was created and after it finished (bytes). */
  readonly redisBytes?: { readonly before: number; readonly after: number };
}

export interface AnsweringResult {
  readonly rounds: readonly RoundResult[];
  /** The simulator's report over the whole run (registration and every round). */
  readonly fleet: Report;
  /** Seconds from the fleet's start until every device had polled (registered). */
  readonly registrationS: number;
  /** 503s the benchmark's own Management reads got (and retried): the store did not answer in time. */
  readonly observer503: number;
}

interface RolloutJson {
  id: number;
  status: string;
  totalTargetsPerStatus: Record<string, number>;
}
interface GroupJson { name: string; status: string; totalTargetsPerStatus: Record<string, number> }

const cpuS = (pid: number): number => (cpuTicks(pid) ?? 0) / 100;

/** Runs the fleet and the rounds on a fresh server (and Redis); stops all three afterwards. */
export async function answeringRollouts(o: AnsweringOptions, log: (line: string) => void): Promise<AnsweringResult> {
  const redis = o.store === 'redis' ? await startRedis() : undefined;
  let server: BenchServer | undefined;
  let fleet: FleetProcess | undefined;
  try {
    server = await startServer(serverConfig(o.store, redis?.url), {}, o.serverArgs ?? []);
    let observer503 = 0;
    const a = retrying(api(server.url), () => { observer503++; });
    log(`${o.store}: ${o.devices} simulated devices polling every ${o.pollS} s (peregrine-sim, its own process) ...`);
    const began = performance.now();
    fleet = startFleetProcess(scenario(server.url, o));
    const registered = (): Promise<number> => a.get<{ total: number }>('/rest/v1/targets?q=updatestatus==registered&limit=1').then((p) => p.total);
    const f = fleet;
    const registrationS = await until('every device registered', async () => {
      if (f.exited() !== undefined) throw new Error(`the simulator exited with ${f.exited()} before its devices registered`);
      return registered();
    }, (n) => n >= o.devices, began, 120 + o.devices / 200);
    await sleep(2 * o.pollS * 1000); // every device past its first turn (configData) and polling on its schedule
    const rounds: RoundResult[] = [];
    for (let r = 0; r < o.rounds; r++) {
      rounds.push(await round(a, o, r, server, fleet, redis));
      const last = rounds[rounds.length - 1]!;
      log(`${o.store} round ${r + 1}: start -> finished ${last.seconds.toFixed(2)} s, groups finished at ${last.groups.map((g) => g.finishedAt.toFixed(2)).join(', ')} s`);
    }
    const report = await fleet.stop();
    fleet = undefined;
    return { rounds, fleet: report, registrationS, observer503 };
  } finally {
    await fleet?.stop().catch(() => undefined);
    await server?.stop();
    await redis?.stop();
  }
}

function scenario(url: string, o: AnsweringOptions): Record<string, unknown> {
  const sleep = `00:${String(Math.floor(o.pollS / 60)).padStart(2, '0')}:${String(o.pollS % 60).padStart(2, '0')}`;
  return {
    name: 'bench-answering', server: url, admin: 'admin:admin',
    tenantConfig: { pollingTime: sleep, minPollingTime: '00:00:00' },
    timeScale: 1, durationSeconds: 7 * 24 * 3600, rampSeconds: o.pollS, connections: 128,
    fleet: {
      auth: { mode: 'target', tokenPrefix: 'bench' },
      behaviour: { poll: { jitter: 0 }, download: { mode: 'skip' }, installSeconds: 0, outcome: { success: 1 } },
      groups: [{ name: 'dev', count: o.devices, idPattern: 'dev-{n}' }],
    },
  };
}

async function round(
  a: Api, o: AnsweringOptions, r: number, server: BenchServer, fleet: FleetProcess, redis: BenchRedis | undefined,
): Promise<RoundResult> {
  const ds = await release(a, r);
  const memBefore = redis === undefined ? undefined : await usedMemory(redis.url);
  const created = (await a.post('/rest/v1/rollouts', {
    name: `answering-${r + 1}`, distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: o.waves,
    successCondition: { condition: 'THRESHOLD', expression: '100' },
  })) as RolloutJson;
  await until('ready', () => a.get<RolloutJson>(`/rest/v1/rollouts/${created.id}`), (x) => x.status === 'ready', performance.now());
  const cpu0 = { server: cpuS(server.pid), fleet: cpuS(fleet.pid), redis: redis === undefined ? 0 : cpuS(redis.pid) };
  const t0 = performance.now();
  await a.post(`/rest/v1/rollouts/${created.id}/start`, {});
  const times = new Map<string, { runningAt?: number; startedAt?: number; actionsDoneAt?: number; finishedAt?: number }>();
  let rssMax = 0;
  const seconds = await until('finished', async () => {
    const groups = await a.get<{ content: GroupJson[] }>(`/rest/v1/rollouts/${created.id}/deploygroups?representation=full&limit=${o.waves}`);
    const at = (performance.now() - t0) / 1000;
    rssMax = Math.max(rssMax, server.rss());
    for (const g of groups.content) {
      const t = times.get(g.name) ?? {};
      times.set(g.name, t);
      const started = g.status === 'running' || g.status === 'finished' || g.status === 'error';
      if (started) t.runningAt ??= at;
      if (started && (g.totalTargetsPerStatus['scheduled'] ?? 0) === 0 && (g.totalTargetsPerStatus['notstarted'] ?? 0) === 0) t.startedAt ??= at;
      const counts = Object.values(g.totalTargetsPerStatus).reduce((x, y) => x + y, 0);
      if (started && counts > 0 && g.totalTargetsPerStatus['finished'] === counts) t.actionsDoneAt ??= at;
      if (g.status === 'finished') t.finishedAt ??= at;
    }
    return a.get<RolloutJson>(`/rest/v1/rollouts/${created.id}`);
  }, (x) => x.status === 'finished', t0, 600 + 3 * o.waves * o.pollS, o.observeMs);
  const cpu1 = { server: cpuS(server.pid), fleet: cpuS(fleet.pid), redis: redis === undefined ? 0 : cpuS(redis.pid) };
  const done = await a.get<RolloutJson>(`/rest/v1/rollouts/${created.id}`);
  if (done.totalTargetsPerStatus['finished'] !== o.devices) throw new Error(`round ${r + 1} finished ${JSON.stringify(done.totalTargetsPerStatus)}`);
  const groups = [...times.entries()].map(([name, t]) => ({
    name, runningAt: t.runningAt ?? seconds, startedAt: t.startedAt ?? seconds, actionsDoneAt: t.actionsDoneAt ?? seconds,
    finishedAt: t.finishedAt ?? seconds,
  })).sort((x, y) => x.runningAt - y.runningAt);
  return {
    seconds, groups, serverCpuS: cpu1.server - cpu0.server, fleetCpuS: cpu1.fleet - cpu0.fleet, serverRssMax: rssMax,
    ...(redis === undefined ? {} : {
      redisCpuS: cpu1.redis - cpu0.redis,
      redisBytes: { before: memBefore ?? 0, after: await usedMemory(redis.url) },
    }),
  };
}

/** A new release for round `r`: the module and set types first (round 0), then a one-module set of version 1.r. */
async function release(a: Api, r: number): Promise<number> {
  if (r === 0) {
    await a.post('/rest/v1/softwaremoduletypes', [{ key: 'bench-os', name: 'Bench OS', maxAssignments: 1 }]);
    const [sm] = (await a.get<{ content: { id: number }[] }>('/rest/v1/softwaremoduletypes?q=key==bench-os')).content;
    await a.post('/rest/v1/distributionsettypes', [{ key: 'bench', name: 'Bench', mandatorymodules: [{ id: sm!.id }] }]);
  }
  const [sm] = (await a.post('/rest/v1/softwaremodules', [{ name: 'bench-fw', version: `1.${r}`, type: 'bench-os' }])) as { id: number }[];
  const [ds] = (await a.post('/rest/v1/distributionsets', [{ name: 'bench-release', version: `1.${r}`, type: 'bench', modules: [{ id: sm!.id }] }])) as { id: number }[];
  return ds!.id;
}

/** The API with GETs retried on 503 (a store that did not answer in time on a loaded machine), each one counted. */
function retrying(inner: Api, counted: () => void): Api {
  return {
    post: (path, json) => inner.post(path, json),
    async get<T>(path: string): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await inner.get<T>(path);
        } catch (err) {
          if (attempt >= 20 || !/answered 503/.test((err as Error).message)) throw err;
          counted();
          await sleep(100);
        }
      }
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
