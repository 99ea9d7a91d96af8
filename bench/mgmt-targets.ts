/**
 * Management API target benchmark: bulk creation over HTTP and target list queries on a large fleet,
 * on the Redis store (a private redis-server on a free port, the real server as a child process).
 *
 *   node dist/bench/mgmt-targets.js [--fleet 100000] [--requests 30] [--budget 40]
 *
 * 1. creates 10,000 targets in arrays of 500, sequentially, and reports targets/s;
 * 2. grows the fleet to --fleet targets (arrays of 500, two requests in flight);
 * 3. registers 2,000 devices by one DDI poll each and tags 1,000 targets;
 * 4. times --requests sequential `GET /rest/v1/targets?q=...&limit=50` per query (p50/p95), for
 *    indexed fields (update status, tag, controller id) and a field without an index (description),
 *    each series stopping early after --budget seconds.
 * Every answer is checked (status 200 and the expected total) before it counts.
 */
import { Command } from 'commander';
import { request } from 'undici';
import { api } from './lib/fleet.js';
import { startRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--fleet <n>', 'targets in the fleet for the query figures', '100000')
  .option('--requests <n>', 'sequential requests per query', '30')
  .option('--budget <s>', 'seconds at most per query series', '40')
  .parse()
  .opts<{ fleet: string; requests: string; budget: string }>();
const FLEET = Number(o.fleet);
const REQUESTS = Number(o.requests);
const BUDGET_MS = Number(o.budget) * 1000;
const BATCH = 500;
const FIRST = 10_000;
const REGISTERED = 2000;
const TAGGED = 1000;
const AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0=';

const config = (redisUrl: string): string => [
  `store: { kind: redis, redisUrl: '${redisUrl}' }`,
  'log: { level: warn }',
  'tenants:',
  '  - name: DEFAULT',
  `    users: [{ username: admin, password: '${ADMIN_HASH}', permissions: [ALL] }]`,
  '    config: { authentication.targettoken.enabled: true }',
  '',
].join('\n');

const token = (i: number): string => `tok${String(i).padStart(29, '0')}`;
/** One target in a hundred has "foo" in its description: 1% selectivity for the scan query. */
const item = (i: number) => ({ controllerId: `dev-${i}`, name: `device ${i}`, description: `${i % 100 === 0 ? 'foo' : 'bar'} unit ${i}`, securityToken: token(i) });

async function createRange(a: ReturnType<typeof api>, from: number, to: number, inFlight: number): Promise<number> {
  const started = performance.now();
  const starts: number[] = [];
  for (let i = from; i < to; i += BATCH) starts.push(i);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < starts.length) {
      const s = starts[next++] as number;
      await a.post('/rest/v1/targets', Array.from({ length: Math.min(BATCH, to - s) }, (_, j) => item(s + j)));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (to - from) / ((performance.now() - started) / 1000);
}

async function pollOnce(url: string, n: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const res = await request(`${url}/DEFAULT/controller/v1/dev-${i}`, { headers: { authorization: `TargetToken ${token(i)}` } });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`poll of dev-${i} answered ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function total(url: string, q: string): Promise<number> {
  const res = await request(`${url}/rest/v1/targets?limit=1&q=${encodeURIComponent(q)}`, { headers: { authorization: AUTH } });
  const body = (await res.body.json()) as { total: number };
  if (res.statusCode !== 200) throw new Error(`q=${q} answered ${res.statusCode}`);
  return body.total;
}

interface Series {
  readonly query: string; readonly index: string; readonly matches: number; readonly requests: number;
  readonly p50Ms: number; readonly p95Ms: number; readonly maxMs: number;
}

async function timeQuery(url: string, q: string, index: string, expected: number): Promise<Series> {
  const times: number[] = [];
  const began = performance.now();
  for (let i = 0; i < REQUESTS && performance.now() - began < BUDGET_MS; i++) {
    const t0 = performance.now();
    const res = await request(`${url}/rest/v1/targets?limit=50&q=${encodeURIComponent(q)}`, { headers: { authorization: AUTH } });
    const body = (await res.body.json()) as { total: number; size: number };
    times.push(performance.now() - t0);
    if (res.statusCode !== 200 || body.total !== expected || body.size !== Math.min(50, expected)) {
      throw new Error(`q=${q}: status ${res.statusCode}, total ${body.total} (expected ${expected}), size ${body.size}`);
    }
  }
  times.sort((a, b) => a - b);
  const pct = (p: number): number => Number((times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)] ?? 0).toFixed(1));
  const row = { query: q, index, matches: expected, requests: times.length, p50Ms: pct(50), p95Ms: pct(95), maxMs: pct(100) };
  console.log(`${q}: ${row.requests} requests, p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms (${expected} matches of ${FLEET})`);
  return row;
}

const redis = await startRedis();
const server = await startServer(config(redis.url));
try {
  const a = api(server.url);
  const createRate = await createRange(a, 0, FIRST, 1);
  console.log(`created ${FIRST} targets in arrays of ${BATCH}: ${createRate.toFixed(0)} targets/s`);
  const growRate = await createRange(a, FIRST, FLEET, 2);
  console.log(`grew the fleet to ${FLEET} targets: ${growRate.toFixed(0)} targets/s (2 requests in flight)`);
  await pollOnce(server.url, REGISTERED);
  const [tag] = (await a.post('/rest/v1/targettags', [{ name: 'bench' }])) as { id: number }[];
  const tagged = Array.from({ length: TAGGED }, (_, i) => ({ controllerId: `dev-${i * Math.floor(FLEET / TAGGED)}` }));
  await a.post(`/rest/v1/targettags/${tag?.id}/assigned`, tagged);
  // the registrations are written through the target actors; wait until all are visible
  for (let i = 0; i < 100 && (await total(server.url, 'updatestatus==registered')) < REGISTERED; i++) await new Promise((r) => setTimeout(r, 100));

  const rows: Series[] = [
    await timeQuery(server.url, 'updatestatus==registered', 'updateStatus', REGISTERED),
    await timeQuery(server.url, 'tag==bench', 'tag (via tag name)', TAGGED),
    await timeQuery(server.url, `controllerid==dev-${FLEET - 7}`, 'controllerId (unique)', 1),
    await timeQuery(server.url, 'description==*foo*', 'none (full scan)', FLEET / 100),
  ];
  writeResults('mgmt-targets', { fleet: FLEET, requests: REQUESTS, batch: BATCH, store: 'redis' }, rows as unknown as Record<string, unknown>[], {
    'create targets/s (10,000 in arrays of 500)': Math.round(createRate),
    [`grow targets/s (to ${FLEET}, 2 in flight)`]: Math.round(growRate),
    'server RSS MiB': Math.round(server.rss() / 2 ** 20),
  });
} finally {
  await server.stop();
  await redis.stop();
}
