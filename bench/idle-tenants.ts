/**
 * What idle tenants cost Redis (issue 25's figure: "engine cost with 1,000 idle tenants on one Redis"):
 * the real server on a private redis-server, `--tenants` tenants created at runtime
 * (`POST /rest/v1/system/admin/tenants`), each with nothing to do: no rollout, no webhook, no open action.
 * After `--settle` seconds (every tenant's first full pass), Redis's commands, script calls and main-thread
 * CPU are counted over `--idle` seconds; the same is measured before, with the one tenant of config.yaml.
 * The runners' safety sweep looks at each tenant every 5 minutes, so a window of 300 s or more includes
 * every tenant's sweep; a shorter one shows the steady part only.
 *   node dist/bench/idle-tenants.js [--tenants 1000] [--idle 60] [--settle 20]
 */
import { Command } from 'commander';
import { createClient } from 'redis';
import { request } from 'undici';
import { ADMIN_AUTH, serverConfig } from './lib/fleet.js';
import { startRedis } from './lib/redis.js';
import { snapshot, topCalls, type Snapshot } from './lib/redis-info.js';
import { writeResults } from './lib/results.js';
import { startServer } from './lib/server.js';
import { cpuTicks, TICKS_PER_S } from './lib/wrk.js';

const o = new Command('idle-tenants')
  .option('--tenants <n>', 'idle tenants created at runtime', '1000')
  .option('--idle <s>', 'seconds the idle rate is measured over (300+ includes every tenant\'s 5-minute sweep)', '60')
  .option('--settle <s>', 'seconds after the last tenant is created before measuring', '20')
  .parse()
  .opts<{ tenants: string; idle: string; settle: string }>();
const TENANTS = Number(o.tenants);
const IDLE_S = Number(o.idle);
const SETTLE_S = Number(o.settle);
for (const [name, v] of [['--tenants', TENANTS], ['--idle', IDLE_S], ['--settle', SETTLE_S]] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number of at least 1`);
}

const sleep = (s: number): Promise<void> => new Promise((r) => setTimeout(r, s * 1000));
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

interface Window {
  readonly commands: number;
  readonly scripts: number;
  readonly redisCpuUs: number;
  readonly serverCpuUs: number;
  readonly top: string;
}

async function measure(redis: ReturnType<typeof createClient>, pid: number, seconds: number): Promise<Window> {
  const from: Snapshot = await snapshot(redis);
  const ticks = cpuTicks(pid) ?? NaN;
  await sleep(seconds);
  const to = await snapshot(redis);
  const s = (to.at - from.at) / 1000;
  return {
    commands: (to.commands - from.commands) / s,
    scripts: (to.scripts - from.scripts) / s,
    redisCpuUs: ((to.cpuS - from.cpuS) / s) * 1e6,
    serverCpuUs: (((cpuTicks(pid) ?? NaN) - ticks) / TICKS_PER_S / s) * 1e6,
    top: topCalls(from, to, s),
  };
}

async function createTenant(baseUrl: string, name: string): Promise<void> {
  const res = await request(`${baseUrl}/rest/v1/system/admin/tenants`, {
    method: 'POST',
    headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ name, users: [{ username: 'ops', password: `pw-${name}-idle`, permissions: ['ALL'] }] }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`POST tenant ${name} answered ${res.statusCode}: ${text.slice(0, 300)}`);
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const server = await startServer(serverConfig('redis', redis.url));
  try {
    await sleep(3); // start-up work settles
    const one = await measure(admin, server.pid, Math.min(IDLE_S, 30));
    console.log(`1 tenant (config.yaml): ${round(one.commands)} commands/s (${one.top})`);
    const began = performance.now();
    for (let i = 0; i < TENANTS; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, TENANTS - i) }, (_, j) => createTenant(server.url, `IDLE-${i + j}`)));
    }
    const createdS = (performance.now() - began) / 1000;
    console.log(`created ${TENANTS} tenants in ${round(createdS, 1)} s; settling ${SETTLE_S} s, then measuring ${IDLE_S} s`);
    await sleep(SETTLE_S);
    const many = await measure(admin, server.pid, IDLE_S);
    const perTenant = (x: number, y: number): number => (x - y) / TENANTS;
    console.log(`${TENANTS + 1} tenants: ${round(many.commands)} commands/s (${many.top})`);
    const rows = [
      { tenants: 1, 'window (s)': Math.min(IDLE_S, 30), 'commands/s': round(one.commands), 'scripts/s': round(one.scripts), 'Redis CPU µs/s': Math.round(one.redisCpuUs), 'server CPU µs/s': Math.round(one.serverCpuUs), 'top commands/s': one.top },
      { tenants: TENANTS + 1, 'window (s)': IDLE_S, 'commands/s': round(many.commands), 'scripts/s': round(many.scripts), 'Redis CPU µs/s': Math.round(many.redisCpuUs), 'server CPU µs/s': Math.round(many.serverCpuUs), 'top commands/s': many.top },
    ];
    const figures = {
      'commands/s per idle tenant (added tenants)': round(perTenant(many.commands, one.commands), 3),
      'Redis CPU µs/s per idle tenant (added tenants)': round(perTenant(many.redisCpuUs, one.redisCpuUs), 2),
      'server CPU µs/s per idle tenant (added tenants)': round(perTenant(many.serverCpuUs, one.serverCpuUs), 2),
      'tenants created (s)': round(createdS, 1),
      'window includes every tenant\'s 5-minute sweep': IDLE_S >= 300 ? 'yes' : 'no (steady part only)',
    };
    for (const [k, v] of Object.entries(figures)) console.log(`- ${k}: ${v}`);
    writeResults('idle-tenants', { tenants: TENANTS, idleS: IDLE_S, settleS: SETTLE_S, store: 'redis (one server)' }, rows, figures);
  } finally {
    await server.stop();
    await admin.quit().catch(() => undefined);
    await redis.stop();
  }
}

await main();
