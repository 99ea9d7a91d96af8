/**
 * `peregrine serve --workers N` (src/app/workers.ts) with the built CLI: several event loops on one
 * port over a real Redis, each device request on a fresh connection so that the kernel spreads
 * them over the loops.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createDevices, createReleaseAndAssign, serverConfig, type Api } from '../../bench/lib/fleet.js';
import { built, CLI, listening, run, type Child } from '../helpers/cli.js';
import { freePort, startRedis, uniqueTenant, type RedisServer } from '../helpers/redis.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEVICES = 24;
/** Poll records are written only when a loop stops (flush interval 10 min): a restart sees what each loop flushed on SIGTERM. */
const SERVER = 'server: { host: 127.0.0.1, port: 0 }\nscheduler: { rolloutMs: 100 }\n';
/** ddi settings of these servers (serverConfig writes the ddi block). */
const DDI = { pollFlushMs: '600000' };

function configFile(name: string, yaml: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

/** One request on a new connection (no keep-alive agent). */
type Init = { method?: string; headers?: Record<string, string>; body?: string };
function fresh(url: string, init: Init = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** One round of every device: poll; with an action, read it and report success. Returns the requests made. */
async function deviceRound(url: string, tokens: readonly string[], tenant = 'DEFAULT'): Promise<number> {
  const counts = await Promise.all(
    tokens.map(async (token, i) => {
      const headers = { authorization: `TargetToken ${token}`, 'content-type': 'application/json' };
      const base = `${url}/${tenant}/controller/v1/dev-${i}`;
      const poll = await fresh(base, { headers });
      expect(poll.status).toBe(200);
      const action = /deploymentBase\/([0-9]+)/.exec(poll.body)?.[1];
      if (action === undefined) return 1;
      expect((await fresh(`${base}/deploymentBase/${action}`, { headers })).status).toBe(200);
      const feedback = JSON.stringify({ status: { execution: 'closed', result: { finished: 'success' } } });
      expect((await fresh(`${base}/deploymentBase/${action}/feedback`, { method: 'POST', headers, body: feedback })).status).toBe(200);
      return 3;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function until<T>(what: string, read: () => Promise<T>, done: (x: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const x = await read();
    if (done(x)) return x;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(x)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The sum of every series of a counter in Prometheus text. */
function counterSum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe.skipIf(!built)('peregrine serve --workers (built CLI)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('serves one port from 2 loops on Redis: a rollout runs once, /metrics sums the loops, every loop flushes on SIGTERM', async () => {
    const config = configFile('redis.yaml', SERVER + serverConfig('redis', redis.url, undefined, DDI));
    const child = run([CLI, 'serve', '--config', config, '--workers', '2'], { cwd: dir });
    const url = await listening(child, 'redis');
    expect(child.stdout).toContain(`peregrine listening on ${url} (store: redis) with 2 event loops`);
    const port = new URL(url).port;

    const a: Api = api(url);
    const tokens = await createDevices(a, DEVICES);
    let requests = await deviceRound(url, tokens);
    await createReleaseAndAssign(a, 0);
    const ds = (await a.get<{ content: { id: number }[] }>('/rest/v1/distributionsets?q=name==bench-release')).content[0]!.id;
    const body = { name: 'loops', distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: 2, successCondition: { condition: 'THRESHOLD', expression: '100' } };
    const rollout = (await a.post('/rest/v1/rollouts', body)) as { id: number };
    await until('ready', () => a.get<{ status: string }>(`/rest/v1/rollouts/${rollout.id}`), (r) => r.status === 'ready');
    await a.post(`/rest/v1/rollouts/${rollout.id}/start`, {});
    await until(
      'the rollout to finish',
      async () => {
        requests += await deviceRound(url, tokens);
        return a.get<{ status: string; totalTargetsPerStatus: Record<string, number> }>(`/rest/v1/rollouts/${rollout.id}`);
      },
      (r) => r.status === 'finished',
    );
    // the engine ran once: one action per device, finished
    for (let i = 0; i < DEVICES; i++) {
      const actions = await a.get<{ total: number; content: { status: string }[] }>(`/rest/v1/targets/dev-${i}/actions`);
      expect(actions.total).toBe(1);
      expect(actions.content[0]?.status).toBe('finished');
    }
    const metrics = await fresh(`${url}/metrics`);
    expect(counterSum(metrics.body, 'http_requests_total')).toBeGreaterThanOrEqual(requests);
    // every closing feedback (and every other request that waits for its effects) heard of them, whichever
    // loop's dispatcher handled them: none waited out the settle timeout
    expect(metrics.body).toContain('effects_settle_timeouts_total');
    expect(counterSum(metrics.body, 'effects_settle_timeouts_total')).toBe(0);

    // a second server on the port is refused, with one loop or several
    for (const workers of ['1', '2']) {
      const second = run([CLI, 'serve', '--config', config, '--workers', workers], { cwd: dir, env: { PEREGRINE_PORT: port } });
      expect(await second.exited).toBe(1);
      expect(second.stderr).toContain('the port is already in use');
    }

    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);

    // every device's last poll was flushed by whichever loop served it
    const again = run([CLI, 'serve', '--config', config], { cwd: dir });
    const api2 = api(await listening(again, 'redis'));
    for (let i = 0; i < DEVICES; i++) {
      const target = await api2.get<{ pollStatus?: { lastRequestAt: number } }>(`/rest/v1/targets/dev-${i}`);
      expect(target.pollStatus?.lastRequestAt).toBeGreaterThan(0);
    }
    again.proc.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 60_000);

  it('answers every closing feedback once its effects are handled, whichever loop handled them; a kill -9 after the answers loses none', async () => {
    const tenant = uniqueTenant('settle').toUpperCase();
    const yaml = SERVER + serverConfig('redis', redis.url, undefined, DDI).replace('name: DEFAULT', `name: ${tenant}`);
    const config = configFile('settle.yaml', yaml);
    const child = run([CLI, 'serve', '--config', config, '--workers', '2'], { cwd: dir });
    const url = await listening(child, 'redis');
    const a: Api = api(url);
    const devices = 100;
    const tokens = await createDevices(a, devices);
    await createReleaseAndAssign(a, devices);
    // poll, read the action, report success: each on a fresh connection, so both loops commit and dispatch
    expect(await deviceRound(url, tokens, tenant)).toBe(3 * devices);
    // the answers came after the effects (target in sync) were handled: nothing is left pending
    const pending = await a.get<{ total: number }>('/rest/v1/targets?q=updateStatus==pending&limit=1');
    expect(pending.total).toBe(0);
    // and no request waited out the settle timeout: each heard of its effects from the loop that handled them
    expect(counterSum((await fresh(`${url}/metrics`)).body, 'effects_settle_timeouts_total')).toBe(0);

    child.proc.kill('SIGKILL');
    await child.exited;
    const again = run([CLI, 'serve', '--config', config], { cwd: dir });
    const a2 = api(await listening(again, 'redis'));
    expect((await a2.get<{ total: number }>('/rest/v1/targets?q=updateStatus==in_sync&limit=1')).total).toBe(devices);
    again.proc.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 60_000);

  it('lets exactly one of two servers started at the same moment on one port serve; the other exits 1 saying why', async () => {
    const config = configFile('race.yaml', SERVER + serverConfig('redis', redis.url, undefined, DDI));
    for (let round = 0; round < 5; round++) {
      const port = String(await freePort());
      const pair = [0, 1].map(() => run([CLI, 'serve', '--config', config, '--workers', '2'], { cwd: dir, env: { PEREGRINE_PORT: port } }));
      // the loser exits; the winner serves until stopped. Both listening is the failure this guards against.
      const bothListen = Promise.all(pair.map((c) => listening(c, 'redis'))).then(
        () => undefined,
        () => new Promise<never>(() => undefined), // one exited: its exit decides the race
      );
      const loser = await Promise.race([...pair.map((c) => c.exited.then(() => c)), bothListen]);
      expect(loser, `round ${round}: both servers listen on port ${port}`).toBeDefined();
      const winner = pair.find((c) => c !== loser) as Child;
      expect(await (loser as Child).exited, loser?.stderr).toBe(1);
      expect(loser?.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(loser?.stdout).not.toContain('peregrine listening');
      const url = await listening(winner, 'redis');
      expect((await fresh(`${url}/health`)).status).toBe(200);
      winner.proc.kill('SIGTERM');
      expect(await winner.exited).toBe(0);
    }
  }, 90_000);

  it('serves from 2 loops on Redis Cluster', async () => {
    const tenant = uniqueTenant('loops').toUpperCase();
    const nodes = inject('redisClusterUrls').map((u) => `'${u}'`).join(', ');
    const yaml = serverConfig('redis', undefined, undefined, DDI).replace('store: { kind: redis }', `store: { kind: redis, redisCluster: [${nodes}] }`).replace('name: DEFAULT', `name: ${tenant}`);
    const child = run([CLI, 'serve', '--config', configFile('cluster.yaml', SERVER + yaml), '--workers', '2'], { cwd: dir });
    const url = await listening(child, 'redis');
    expect(child.stdout).toContain('with 2 event loops');
    const tokens = await createDevices(api(url), DEVICES);
    let requests = 0;
    for (let round = 0; round < 3; round++) requests += await deviceRound(url, tokens, tenant);
    expect(counterSum((await fresh(`${url}/metrics`)).body, 'http_requests_total')).toBeGreaterThanOrEqual(requests);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  }, 30_000);

  it('keeps one loop on the memory store and says so', async () => {
    const config = configFile('memory.yaml', 'server: { host: 127.0.0.1, port: 0, workers: 2 }\nlog: { level: warn }\ntenants:\n  - name: DEFAULT\n');
    const child: Child = run([CLI, 'serve', '--config', config], { cwd: dir });
    const url = await listening(child);
    expect(child.stdout).toContain(`peregrine listening on ${url} (store: memory) with 1 event loop, not 2: workers need the redis store`);
    expect(child.stdout).toContain('server.workers is 2 but the memory store lives in one thread: serving with 1 event loop');
    expect((await fresh(`${url}/health`)).status).toBe(200);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it.each(['0', '-1', 'abc', '65', '1.5'])('refuses --workers %s naming the option, with exit 1', async (value) => {
    const child = run([CLI, 'serve', `--workers=${value}`], { cwd: dir });
    expect(await child.exited).toBe(1);
    const shown = /^-?\d+$/.test(value) ? value : `"${value}"`;
    expect(child.stderr.trim()).toBe(`peregrine: --workers (server.workers): expected a whole number from 1 to 64, got ${shown}`);
  });

  it('refuses PEREGRINE_WORKERS out of range, naming the variable', async () => {
    const child = run([CLI, 'serve'], { cwd: dir, env: { PEREGRINE_WORKERS: '100' } });
    expect(await child.exited).toBe(1);
    expect(child.stderr.trim()).toBe('peregrine: PEREGRINE_WORKERS (server.workers): expected a whole number from 1 to 64, got 100');
  });
});
