/**
 * DMF status throughput: how many UPDATE_ACTION_STATUS messages per second the connector takes from
 * `dmf_receiver` through the action machine into the store, end to end. A private RabbitMQ node and
 * (for --store redis) a private redis-server; the real server as a child process with DMF on.
 *
 *   node dist/bench/dmf-status.js [--things 200] [--per-thing 50] [--store memory|redis] [--prefetch 64] [--cpu-prof DIR]
 *
 * Setup (not timed): the things register with THING_CREATED on one reply-to exchange (a gateway),
 * one distribution set is assigned to all of them over the Management API, and the bench waits for
 * every DOWNLOAD_AND_INSTALL. Timed: `per-thing` RUNNING reports for every action (interleaved across
 * actions, as a gateway serving many devices sends them), then a FINISHED per action, all published
 * with broker confirms as fast as the broker takes them; the clock stops when the Management API
 * shows every action finished. Checked before any figure counts: every action finished, with
 * 1 + per-thing + 1 status entries, and nothing dead-lettered.
 *
 * Besides the rate, figures that depend less on the machine's load: the server's CPU time per message
 * (/proc, user + system) and, on Redis, the commands and Redis main-thread CPU per message over the
 * timed phase (the bench's own polls of the Management API taken off, at what one poll cost before).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { createClient } from 'redis';
import { Connection, type Publisher } from 'rabbitmq-client';
import { request } from 'undici';
import { startRabbit } from './lib/rabbitmq.js';
import { startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--things <n>', 'devices (actions)', '200')
  .option('--per-thing <n>', 'RUNNING reports per action before its FINISHED', '50')
  .option('--store <kind>', 'memory or redis (a private redis-server)', 'memory')
  .option('--prefetch <n>', 'dmf.prefetch of the server', '64')
  .option('--cpu-prof <dir>', 'write a V8 CPU profile of the server to this directory (node --cpu-prof)')
  .parse()
  .opts<{ things: string; perThing: string; store: string; prefetch: string; cpuProf?: string }>();

const THINGS = Number(o.things);
const PER_THING = Number(o.perThing);
const STORE = o.store === 'redis' ? 'redis' : 'memory';
const PREFETCH = Number(o.prefetch);
const TENANT = 'DEFAULT';
const VHOST = 'bench';
const GATEWAY = 'bench.gateway';
const AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0=';
const WINDOW = 2000; // publishes in flight at once

async function call<T>(base: string, method: 'GET' | 'POST', path: string, json?: unknown): Promise<T> {
  const res = await request(base + path, {
    method, headers: { authorization: AUTH, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, body: json === undefined ? null : JSON.stringify(json),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Publishes with confirms, at most WINDOW in flight. */
async function publishAll(
  pub: Publisher, messages: readonly { headers: Record<string, string>; body: unknown; replyTo?: string }[],
): Promise<void> {
  for (let i = 0; i < messages.length; i += WINDOW) {
    await Promise.all(messages.slice(i, i + WINDOW).map((m) =>
      pub.send({ exchange: 'dmf.exchange', routingKey: '', headers: m.headers, durable: true, ...(m.replyTo ? { replyTo: m.replyTo } : {}) }, m.body)));
  }
}

/** CPU seconds (user + system) the process used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

interface RedisCounts {
  readonly commands: number;
  readonly cpuS: number;
}

async function redisCounts(redis: ReturnType<typeof createClient>): Promise<RedisCounts> {
  const info = await redis.info('everything');
  const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  // this INFO is counted in the next window: taken off here
  return { commands: field('total_commands_processed') - 1, cpuS: field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread') };
}

async function main(): Promise<void> {
  const rabbit = await startRabbit({ vhosts: [VHOST] });
  let redis: BenchRedis | undefined;
  if (STORE === 'redis') redis = await startRedis();
  const server = await startServer([
    `store: { kind: ${STORE}${redis ? `, redisUrl: '${redis.url}' }` : ' }'}`,
    'log: { level: warn }',
    `dmf: { enabled: true, url: '${rabbit.url}', vhost: ${VHOST}, prefetch: ${PREFETCH} }`,
    `quotas: { maxStatusEntriesPerAction: ${PER_THING + 10} }`,
    'tenants:',
    '  - name: DEFAULT',
    `    users: [{ username: admin, password: '${ADMIN_HASH}', permissions: [ALL] }]`,
    '',
  ].join('\n'), {}, o.cpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${o.cpuProf}`]);
  const amqp = new Connection({ hostname: '127.0.0.1', port: rabbit.port, vhost: VHOST, username: 'guest', password: 'guest' });
  amqp.on('error', () => {});
  const downloads = new Map<string, number>();
  const consumer = amqp.createConsumer({
    queue: `${GATEWAY}.q`, exchanges: [{ exchange: GATEWAY, type: 'fanout' }], queueBindings: [{ queue: `${GATEWAY}.q`, exchange: GATEWAY }],
  }, (msg) => {
    if (msg.headers?.['topic'] === 'DOWNLOAD_AND_INSTALL') downloads.set(String(msg.headers['thingId']), (msg.body as { actionId: number }).actionId);
  });
  consumer.on('error', () => {});
  const pub = amqp.createPublisher({ confirm: true });
  try {
    const base = server.url;
    // the connector is up once it answers a PING
    let pong = false;
    const pinger = amqp.createConsumer({ queue: 'bench.pong', exchanges: [{ exchange: 'bench.pong', type: 'fanout' }], queueBindings: [{ queue: 'bench.pong', exchange: 'bench.pong' }] }, () => {
      pong = true;
    });
    pinger.on('error', () => {});
    // a PING answered before the reply-to exchange exists would be dead-lettered (and fail the check below)
    await new Promise((resolve) => pinger.once('ready', resolve));
    await until('the DMF connector', 30_000, async () => {
      await pub.send({ exchange: 'dmf.exchange', routingKey: '', headers: { type: 'PING', tenant: TENANT }, replyTo: 'bench.pong', correlationId: 'p' }, '').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      return pong;
    });
    await pinger.close();

    const things = Array.from({ length: THINGS }, (_, i) => `bench-${i}`);
    await publishAll(pub, things.map((id) => ({ headers: { type: 'THING_CREATED', tenant: TENANT, thingId: id }, body: '', replyTo: GATEWAY })));
    await until('registrations', 60_000, async () => (await call<{ total: number }>(base, 'GET', '/rest/v1/targets?limit=1')).total === THINGS);
    const module = (await call<{ id: number }[]>(base, 'POST', '/rest/v1/softwaremodules', [{ name: 'bench-fw', version: '1', type: 'os' }]))[0]!;
    const ds = (await call<{ id: number }[]>(base, 'POST', '/rest/v1/distributionsets', [{ name: 'bench-ds', version: '1', type: 'os', modules: [{ id: module.id }] }]))[0]!;
    for (let i = 0; i < THINGS; i += 500) {
      await call(base, 'POST', `/rest/v1/distributionsets/${ds.id}/assignedTargets`, things.slice(i, i + 500).map((id) => ({ id, type: 'forced' })));
    }
    await until('DOWNLOAD_AND_INSTALL for every thing', 60_000, async () => downloads.size === THINGS);

    const status = (id: string, actionStatus: string, i: number): { headers: Record<string, string>; body: unknown } => ({
      headers: { type: 'EVENT', topic: 'UPDATE_ACTION_STATUS', tenant: TENANT, thingId: id },
      body: { actionId: downloads.get(id), actionStatus, message: [`report ${i}`], timestamp: Date.now() },
    });
    const messages: { headers: Record<string, string>; body: unknown }[] = [];
    for (let i = 0; i < PER_THING; i++) for (const id of things) messages.push(status(id, 'RUNNING', i));
    for (const id of things) messages.push(status(id, 'FINISHED', PER_THING));

    const finishedCount = async (): Promise<number> =>
      (await call<{ total: number }>(base, 'GET', '/rest/v1/actions?limit=1&q=detailstatus==finished')).total;
    const admin = redis === undefined ? undefined : createClient({ url: redis.url });
    await admin?.connect();
    let perPoll = 0;
    if (admin !== undefined) {
      const before = await redisCounts(admin);
      await finishedCount();
      perPoll = (await redisCounts(admin)).commands - before.commands;
    }
    let polls = 0;
    const redisBefore = admin === undefined ? undefined : await redisCounts(admin);
    const cpuBefore = cpuSeconds(server.pid);
    const started = performance.now();
    await publishAll(pub, messages);
    const published = performance.now();
    await until('every action finished', 600_000, async () => (polls++, await finishedCount()) === THINGS);
    const finished = performance.now();
    const serverCpuS = cpuSeconds(server.pid) - cpuBefore;
    const redisAfter = admin === undefined ? undefined : await redisCounts(admin);
    await admin?.quit();

    // correctness before figures: every report stored, nothing dead-lettered
    const sample = await call<{ total: number }>(base, 'GET', `/rest/v1/targets/${things[0]}/actions/${downloads.get(things[0]!)}/status?limit=1`);
    if (sample.total !== PER_THING + 2) throw new Error(`expected ${PER_THING + 2} status entries, got ${sample.total}`);
    const dead = await amqp.queueDeclare({ queue: 'dmf_connector_deadletter_ttl', passive: true });
    if (dead.messageCount !== 0) {
      const ch = await amqp.acquire();
      const first = await ch.basicGet({ queue: 'dmf_connector_deadletter_ttl' });
      await ch.close();
      throw new Error(`${dead.messageCount} messages were dead-lettered, the first: ${JSON.stringify({ headers: first?.headers, body: first?.body as unknown })}`);
    }

    const seconds = (finished - started) / 1000;
    const rate = messages.length / seconds;
    writeResults('dmf-status', { things: THINGS, perThing: PER_THING, store: STORE, prefetch: PREFETCH, messages: messages.length }, [{
      store: STORE,
      messages: messages.length,
      'publish s': ((published - started) / 1000).toFixed(2),
      'processed s': seconds.toFixed(2),
      'messages/s': Math.round(rate),
      'server CPU µs/message': Math.round((serverCpuS * 1e6) / messages.length),
      ...(redisBefore === undefined || redisAfter === undefined ? {} : {
        'Redis commands/message': ((redisAfter.commands - redisBefore.commands - polls * perPoll) / messages.length).toFixed(2),
        'Redis CPU µs/message': Math.round(((redisAfter.cpuS - redisBefore.cpuS) * 1e6) / messages.length),
      }),
    }], { messagesPerSecond: rate, serverCpuMicrosPerMessage: (serverCpuS * 1e6) / messages.length });
  } finally {
    await consumer.close().catch(() => undefined);
    await pub.close().catch(() => undefined);
    await amqp.close().catch(() => undefined);
    await server.stop();
    await redis?.stop();
    await rabbit.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
