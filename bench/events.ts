/**
 * The live events benchmark (issue 22): 1,000 concurrent SSE subscribers to one rollout of 10,000
 * devices. The real server (own process, `npm start`'s flags), a rollout over every device in --groups
 * groups with a 100 % success threshold, started before anything is measured.
 *
 *   node dist/bench/events.js [--devices 10000] [--subscribers 1000] [--groups 5] [--rate 40] [--lag 10]
 *                             [--duration 5] [--rounds 3] [--connections 64] [--stores memory|redis|memory,redis] [--smoke]
 *                             [--cpu-prof DIR]
 *
 * The subscribers live in their own process (bench/lib/sse-subscribers.ts: one undici Pool allowing
 * every connection, each stream parsed), which reports messages, lag per journal entry (receive time
 * minus the commit time in the entry's id) and its own CPU. The devices of the running group answer at
 * a steady --rate per second from this process (poll, deploymentBase, feedback closed/success on a few
 * lean connections, bench/lib/devices.ts): two action events per device, and the rollout moves on to
 * the next group when one is done (all of a group's actions turning `running` come in one entry).
 * 1. Memory: the server's RSS, idle (no load, no events), sampled a few times once it settled, before
 *    and after the subscribers connected (each had its snapshot); per subscriber = difference / N.
 * 2. Lag with events only: the devices answering, the subscribers connected, no other load (--lag s).
 * 3. The DDI poll under wrk (64 connections cycling every device's TargetToken, as the ddi bench) in
 *    alternating rounds: without subscribers, with N subscribers connected (each round connects them
 *    afresh) and events flowing, and the uWS ceiling answering the same bytes; the devices answer
 *    throughout, so the rounds differ only in the subscribers. Medians with min/max, the ratio
 *    with/without (median of the per-round ratios; issue 22 wants at most a 5 % drop), lag under that load,
 *    wrk's CPU (generator check) and the subscriber process's CPU (did it keep up).
 * --cpu-prof DIR: the server's CPU profile of the poll rounds with subscribers only (started and stopped
 *   through its inspector around them), written to DIR/events-<store>-<round>.cpuprofile.
 * --smoke: 200 devices answering 10 a second, 20 subscribers, 1 s rounds, one round: checks the harness, not the server.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startCeiling } from './lib/ceiling.js';
import { collectGarbage, inspect, type InspectorSession } from './lib/inspector.js';
import { answerDevice, Connection, type Outcome } from './lib/devices.js';
import { ADMIN_AUTH, api, createDevices, createReleaseAndAssign, pollEach, pollRequests, serverConfig, until, type Api } from './lib/fleet.js';
import { freePort, startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer, type BenchServer } from './lib/server.js';
import { median, percentilesOfCounts, stats, type Stats } from './lib/stats.js';
import { startSubscribers, type SubscriberReport } from './lib/subscribers.js';
import { cpuTicks, wrk, type WrkRequest, type WrkResult } from './lib/wrk.js';

const o = new Command()
  .option('--devices <n>', 'devices in the rollout (all cycled through by the poll load)', '10000')
  .option('--subscribers <n>', 'concurrent SSE subscribers to the rollout', '1000')
  .option('--groups <n>', 'groups of the rollout', '5')
  .option('--rate <n>', 'devices of the running group answering per second', '40')
  .option('--lag <s>', 'seconds of the events-only lag window', '10')
  .option('--duration <s>', 'seconds per measured poll round', '5')
  .option('--rounds <n>', 'rounds of each kind (without, with, ceiling)', '3')
  .option('--connections <n>', 'connections of the poll load', '64')
  .option('--stores <list>', 'memory, redis or memory,redis', 'memory')
  .option('--cpu-prof <dir>', 'profile the server (inspector) during the poll rounds with subscribers: <dir>/events-<store>-<round>.cpuprofile')
  .option('--smoke', '200 devices, 20 subscribers, 1 s rounds, one round: checks the harness, not the server')
  .parse()
  .opts<Record<'devices' | 'subscribers' | 'groups' | 'rate' | 'lag' | 'duration' | 'rounds' | 'connections' | 'stores', string> & { smoke?: boolean; cpuProf?: string }>();
const SMOKE = o.smoke === true;
const DEVICES = SMOKE ? 200 : Number(o.devices);
const SUBSCRIBERS = SMOKE ? 20 : Number(o.subscribers);
const GROUPS = Number(o.groups);
const RATE = SMOKE ? 10 : Number(o.rate);
const LAG_S = SMOKE ? 2 : Number(o.lag);
const DURATION = SMOKE ? 1 : Number(o.duration);
const ROUNDS = SMOKE ? 1 : Number(o.rounds);
const CONNECTIONS = Number(o.connections);
const STORES = o.stores.split(',').map((s) => s.trim()).filter((s): s is 'memory' | 'redis' => s === 'memory' || s === 'redis');

interface RolloutJson {
  id: number;
  status: string;
  totalTargetsPerStatus: Record<string, number>;
}
interface GroupJson {
  id: number;
  status: string;
}

/** A group's devices (indexes i of dev-i), read page by page. */
async function groupDevices(a: Api, rollout: number, group: number): Promise<number[]> {
  const out: number[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await a.get<{ content: { controllerId: string }[]; total: number }>(`/rest/v1/rollouts/${rollout}/deploygroups/${group}/targets?limit=500&offset=${offset}`);
    out.push(...page.content.map((t) => Number(t.controllerId.slice('dev-'.length))));
    if (page.content.length < 500 || out.length >= page.total) return out;
  }
}

/**
 * The answering devices: group after group (each once it runs), its devices answer at `rate` a second,
 * on 16 lean connections, at most 64 at a time; a device whose poll showed no open action yet (or
 * failed) tries again later, three times at most. Runs until stopped or the last group is done.
 */
function answering(base: string, a: Api, rollout: number, tokens: readonly string[], rate: number) {
  const connections = Array.from({ length: 16 }, () => new Connection(Number(new URL(base).port)));
  const counts: Record<Outcome | 'given up' | 'groups begun', number> = { idle: 0, reported: 0, failed: 0, 'given up': 0, 'groups begun': 0 };
  let stopped = false;
  let k = 0;
  const run = (async () => {
    const groups = (await a.get<{ content: GroupJson[] }>(`/rest/v1/rollouts/${rollout}/deploygroups?limit=${GROUPS}`)).content.sort((x, y) => x.id - y.id);
    let due = performance.now();
    for (const g of groups) {
      while (!stopped && !['running', 'finished'].includes((await a.get<GroupJson>(`/rest/v1/rollouts/${rollout}/deploygroups/${g.id}`)).status)) await sleep(100);
      if (stopped) return;
      counts['groups begun']++;
      const pending = (await groupDevices(a, rollout, g.id)).map((i) => ({ i, tries: 0 }));
      const inflight = new Set<Promise<void>>();
      while (!stopped && (pending.length > 0 || inflight.size > 0)) {
        const next = pending.shift();
        if (next === undefined || inflight.size >= 64) {
          if (next !== undefined) pending.unshift(next);
          await Promise.race(inflight);
          continue;
        }
        due = Math.max(due + 1000 / rate, performance.now() - 1000); // steady: no burst to catch up more than a second
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const p: Promise<void> = answerDevice(connections[k++ % connections.length]!, tokens[next.i]!, next.i).then((outcome) => {
          counts[outcome]++;
          if (outcome !== 'reported' && ++next.tries < 3) pending.push(next);
          else if (outcome !== 'reported') counts['given up']++;
          inflight.delete(p);
        });
        inflight.add(p);
      }
      await Promise.all(inflight);
    }
  })();
  return {
    counts,
    async stop(): Promise<void> {
      stopped = true;
      await run;
      for (const c of connections) c.close();
    },
  };
}

/** The server's RSS idle, each sample right after a full GC: the median of the samples (min and max too). */
async function settledRss(server: BenchServer, inspectPort: number, samples: number): Promise<Stats> {
  await sleep(SMOKE ? 300 : 2000);
  const xs: number[] = [];
  for (let i = 0; i < samples; i++) {
    await collectGarbage(inspectPort);
    await sleep(200);
    xs.push(server.rss());
  }
  return stats(xs);
}

/** Numbers of the server's /metrics: live streams open, streams dropped as slow. */
async function metrics(base: string): Promise<{ open: number; slow: number }> {
  const res = await request(`${base}/metrics`);
  const text = await res.body.text();
  const num = (re: RegExp): number => Number(re.exec(text)?.[1] ?? 0);
  return { open: num(/^event_streams_open (\S+)$/m), slow: num(/^event_streams_ended_total\{reason="slow"\} (\S+)$/m) };
}

const rows: Record<string, unknown>[] = [];
const figures: Record<string, number | string> = {};
const notes: string[] = [];
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
figures['load average at the start (1, 5, 15 min)'] = load();

/** A rollout over every device, started, its first group running and every action created. */
async function runningRollout(a: Api): Promise<number> {
  const { distributionSetId } = await createReleaseAndAssign(a, 0);
  const r = (await a.post('/rest/v1/rollouts', {
    name: 'events', distributionSetId, targetFilterQuery: 'controllerid==dev-*', amountGroups: GROUPS,
    successCondition: { condition: 'THRESHOLD', expression: '100' },
  })) as RolloutJson;
  const read = (): Promise<RolloutJson> => a.get<RolloutJson>(`/rest/v1/rollouts/${r.id}`);
  await until('ready', read, (x) => x.status === 'ready', performance.now());
  await a.post(`/rest/v1/rollouts/${r.id}/start`, {});
  await until('running, every action created', read, (x) => x.status === 'running' && (x.totalTargetsPerStatus['notstarted'] ?? 0) === 0, performance.now());
  return r.id;
}

async function measure(store: 'memory' | 'redis', server: BenchServer, inspectPort: number): Promise<void> {
  const a = api(server.url);
  const t = performance.now();
  const tokens = await createDevices(a, DEVICES);
  await pollEach(server.url, tokens);
  const rollout = await runningRollout(a);
  console.log(`${store}: ${DEVICES} devices registered, rollout ${rollout} in ${GROUPS} groups running, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const polls = pollRequests(tokens);
  // warm-up as the ddi bench: every device polled twice (at most 10 s)
  const warm = await wrk({ url: server.url, requests: polls, connections: CONNECTIONS, durationS: 1 });
  const fleetS = Math.min(10, Math.ceil((2 * polls.length) / Math.max(1, warm.rps)));
  if (!SMOKE && fleetS > 1) await wrk({ url: server.url, requests: polls, connections: CONNECTIONS, durationS: fleetS });

  const subs = await startSubscribers(`${server.url}/rest/v1/rollouts/${rollout}/events`, ADMIN_AUTH);
  let devices: ReturnType<typeof answering> | undefined;
  try {
    const connect = async (): Promise<number> => {
      const c = await subs.connect(SUBSCRIBERS);
      if (c.connected !== SUBSCRIBERS) throw new Error(`only ${c.connected} of ${SUBSCRIBERS} subscribers got their snapshot`);
      return c.ms;
    };
    // 1. memory, idle
    const samples = SMOKE ? 3 : 10;
    const before = await settledRss(server, inspectPort, samples);
    const connectMs = await connect();
    const after = await settledRss(server, inspectPort, samples);
    const m = await metrics(server.url);
    if (m.open !== SUBSCRIBERS) throw new Error(`/metrics says ${m.open} event streams open, expected ${SUBSCRIBERS}`);
    const per = (x: number): number => Math.round(x / SUBSCRIBERS);
    rows.push({
      row: 'server RSS per subscriber (bytes; idle, median of samples)', store, value: per(after.median - before.median),
      min: per(after.min - before.max), max: per(after.max - before.min),
    });
    figures[`${store}: server RSS before / after ${SUBSCRIBERS} subscribers (MiB)`] = `${(before.median / 2 ** 20).toFixed(1)} / ${(after.median / 2 ** 20).toFixed(1)}`;
    figures[`${store}: ${SUBSCRIBERS} subscribers connected, each with its snapshot, in (ms)`] = connectMs;
    console.log(`${store}: RSS ${(before.median / 2 ** 20).toFixed(1)} -> ${(after.median / 2 ** 20).toFixed(1)} MiB with ${SUBSCRIBERS} subscribers (connected in ${connectMs} ms)`);

    // 2. lag with events only
    devices = answering(server.url, a, rollout, tokens, RATE);
    await sleep(SMOKE ? 500 : 2000); // the first answers under way
    await subs.reset();
    const [ticks, reported, began] = [cpuTicks(server.pid) ?? NaN, devices.counts.reported, performance.now()];
    await sleep(LAG_S * 1000);
    const quiet = await subs.report();
    const seconds = (performance.now() - began) / 1000;
    const serverCpu = round(((cpuTicks(server.pid) ?? NaN) - ticks) / 100 / seconds, 2); // USER_HZ ticks
    lagRows('events only (no poll load)', store, [quiet], { 'server CPU': serverCpu, 'devices reported/s': round((devices.counts.reported - reported) / seconds, 1) });
    await subs.close();

    // 3. poll rounds: without, with, ceiling
    const sample = await request(server.url + polls[0]!.path, { headers: { ...polls[0]!.headers } });
    const body = Buffer.from(await sample.body.arrayBuffer());
    let profiling: InspectorSession | undefined;
    const ceiling = await startCeiling(body, String(sample.headers['content-type'] ?? 'application/json'), { headers: { etag: String(sample.headers['etag'] ?? '') } });
    try {
      await wrk({ url: ceiling.url, requests: polls, connections: CONNECTIONS, durationS: 1 });
      const without: WrkResult[] = [];
      const withSubs: WrkResult[] = [];
      const ceilings: WrkResult[] = [];
      const reports: SubscriberReport[] = [];
      /** Per round: answers outside 2xx/3xx and errors (connect, read, timeouts), counted, not fatal. */
      const bad: number[] = [];
      const profiles: unknown[] = [];
      profiling = o.cpuProf === undefined ? undefined : await inspect(inspectPort);
      await profiling?.call('Profiler.setSamplingInterval', { interval: 500 });
      await profiling?.call('Profiler.enable');
      const poll = async (requests: readonly WrkRequest[]): Promise<WrkResult> => {
        const r = await wrk({ url: server.url, requests, connections: CONNECTIONS, durationS: DURATION }, server.pid);
        if (r.requests === 0) throw new Error('poll: no answer at all in a round');
        bad.push(r.non2xx + r.errors);
        return r;
      };
      for (let i = 0; i < ROUNDS; i++) {
        without.push(await poll(polls));
        await connect();
        await subs.reset();
        await profiling?.call('Profiler.start');
        withSubs.push(await poll(polls));
        await profiling?.call('Profiler.stop').then((p) => profiles.push((p as { profile: unknown }).profile));
        const r = await subs.report();
        reports.push(r);
        if (r.open !== SUBSCRIBERS) throw new Error(`${SUBSCRIBERS - r.open} subscribers lost their stream during the round`);
        await subs.close();
        ceilings.push(await wrk({ url: ceiling.url, requests: polls, connections: CONNECTIONS, durationS: DURATION }, ceiling.pid));
        console.log(`${store} round ${i + 1}: poll ${without[i]!.rps} req/s without, ${withSubs[i]!.rps} with ${SUBSCRIBERS} subscribers `
          + `(${Math.round(r.messages / r.seconds)} event messages/s, subscriber CPU ${r.cpu.toFixed(2)}), ceiling ${ceilings[i]!.rps}; `
          + `wrk CPU ${without[i]!.generatorCpu}/${withSubs[i]!.generatorCpu}/${ceilings[i]!.generatorCpu}; load ${load()}`);
      }
      const ratios = withSubs.map((w, i) => w.rps / without[i]!.rps);
      const pollRow = (row: string, rs: readonly WrkResult[], extra: Record<string, unknown> = {}): void => {
        const s = stats(rs.map((r) => r.rps));
        rows.push({
          row, store, value: s.median, min: s.min, max: s.max, 'wrk CPU': Math.max(...rs.map((r) => r.generatorCpu)),
          'server CPU': median(rs.map((r) => r.serverCpu ?? NaN)), ...extra,
        });
      };
      // one file a round: a profile's node ids are its own
      profiles.forEach((p, i) => writeFileSync(join(o.cpuProf as string, `events-${store}-${i + 1}.cpuprofile`), JSON.stringify(p)));
      pollRow('poll req/s without subscribers', without);
      pollRow(`poll req/s with ${SUBSCRIBERS} subscribers, events flowing`, withSubs, {
        'subscriber CPU': Number(Math.max(...reports.map((r) => r.cpu)).toFixed(2)),
        'event messages/s': Math.round(median(reports.map((r) => r.messages / r.seconds))),
      });
      pollRow('uWS ceiling req/s (the same poll answer)', ceilings);
      const ratio = stats(ratios);
      rows.push({ row: 'poll ratio with / without subscribers', store, value: round(ratio.median, 3), min: round(ratio.min, 3), max: round(ratio.max, 3) });
      const toCeiling = stats(without.map((w, i) => w.rps / ceilings[i]!.rps));
      rows.push({ row: 'poll / ceiling (without subscribers)', store, value: round(toCeiling.median, 3), min: round(toCeiling.min, 3), max: round(toCeiling.max, 3) });
      lagRows('under the poll load (with rounds)', store, reports);
      figures[`${store}: poll ratio with / without subscribers, per round`] = ratios.map((x) => x.toFixed(3)).join(' ');
      figures[`${store}: poll drop with subscribers (%, median)`] = round((1 - ratio.median) * 100, 1);
      figures[`${store}: poll answers outside 2xx/3xx or errors, per round (without, with, ...)`] = bad.join(' ');
      const wrkMax = (rs: readonly WrkResult[]): number => Math.max(...rs.map((r) => r.generatorCpu));
      figures[`${store}: generator check: wrk CPU max, poll rounds / ceiling rounds (cores)`] = `${wrkMax([...without, ...withSubs])} / ${wrkMax(ceilings)}`;
    } finally {
      profiling?.close();
      await ceiling.stop();
    }
    const c = devices.counts;
    await devices.stop();
    devices = undefined;
    const end = await a.get<RolloutJson>(`/rest/v1/rollouts/${rollout}`);
    const groups = await a.get<{ content: GroupJson[] }>(`/rest/v1/rollouts/${rollout}/deploygroups?limit=${GROUPS}`);
    figures[`${store}: devices reported closed/success (of ${DEVICES}); polls without an open action; failed answers`] = `${c.reported}; ${c.idle}; ${c.failed}`;
    figures[`${store}: rollout at the end: status; groups begun by the devices; group statuses`] = `${end.status}; ${c['groups begun']}; ${groups.content.sort((x, y) => x.id - y.id).map((g) => g.status).join(', ')}`;
    figures[`${store}: event streams dropped as slow (/metrics)`] = (await metrics(server.url)).slow;
  } finally {
    await devices?.stop();
    await subs.stop();
  }
}

/** Lag rows of the subscriber reports (their counts added up), with messages/s and the subscriber process's CPU. */
function lagRows(when: string, store: string, reports: readonly SubscriberReport[], extra: Record<string, unknown> = {}): void {
  const counts = new Map<number, number>();
  for (const r of reports) for (const [ms, n] of r.lag) counts.set(ms, (counts.get(ms) ?? 0) + n);
  const p = percentilesOfCounts(counts);
  const cpu = Number(Math.max(...reports.map((r) => r.cpu)).toFixed(2));
  const rate = Math.round(median(reports.map((r) => r.messages / r.seconds)));
  rows.push({ row: `event delivery lag ms, ${when}: p50`, store, value: p.p50, 'subscriber CPU': cpu, 'event messages/s': rate, entries: p.n, ...extra });
  rows.push({ row: `event delivery lag ms, ${when}: p99`, store, value: p.p99 });
  rows.push({ row: `event delivery lag ms, ${when}: max`, store, value: p.max });
  console.log(`${store}: lag ${when}: p50 ${p.p50} ms, p99 ${p.p99} ms, max ${p.max} ms over ${p.n} entries x subscribers; `
    + `${rate} event messages/s, subscriber CPU ${cpu} cores; streams ended by the server: ${reports.reduce((s, r) => s + r.ended, 0)} ${JSON.stringify(extra)}`);
  if (p.n === 0) notes.push(`${store}: no events reached the subscribers ${when} (the rollout had finished, or the devices had not begun)`);
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

for (const store of STORES) {
  let redis: BenchRedis | undefined;
  if (store === 'redis') redis = await startRedis();
  try {
    // the inspector only for a full GC before each memory sample; no session is open otherwise
    const inspectPort = await freePort();
    const server = await startServer(serverConfig(store, redis?.url), {}, [`--inspect=127.0.0.1:${inspectPort}`]);
    try {
      await measure(store, server, inspectPort);
    } finally {
      await server.stop();
    }
  } finally {
    await redis?.stop();
  }
}

figures['load average at the end (1, 5, 15 min)'] = load();
notes.push(`generator check: wrk (1 thread) CPU per round is in the rows; near 1.0 against the ceiling means wrk, not the ceiling, set the pace. `
  + `Subscriber CPU near 1.0 means the subscriber process, not the server, limited the event rate and the lag. All processes share ${figures['load average at the start (1, 5, 15 min)']} (load at the start).`);
notes.push('lag = receive time - commit time (ms in the entry id), per journal entry and subscriber; the hub reads the journal every 200 ms when idle, so up to 200 ms of it is the read interval');
writeResults('events', {
  devices: DEVICES, subscribers: SUBSCRIBERS, groups: GROUPS, rate: RATE, lagS: LAG_S, duration: DURATION, rounds: ROUNDS,
  connections: CONNECTIONS, stores: STORES, smoke: SMOKE,
}, rows, figures, notes);
