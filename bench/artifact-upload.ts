/**
 * Artifact upload benchmark: one multipart upload of a generated artifact to the real server (a
 * child process, as users run it), over HTTP with undici, streamed from memory (no file on the
 * client side). Reports throughput and the largest event-loop delay the server saw meanwhile.
 *
 *   node dist/bench/artifact-upload.js [--size 1GiB] [--store redis|memory]
 *
 * The server's event-loop delay comes from its own /metrics (prom-client's default metrics sample
 * `monitorEventLoopDelay` and reset at each scrape): scraped every 500 ms during the upload, the
 * largest `nodejs_eventloop_lag_max_seconds` is the worst stall of the server's loop. Measuring in a
 * separate process keeps the client's own work (generating and sending 1 GiB) out of the figure.
 * The answer is checked (201, size and sha1 of what was sent) before any figure counts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { request } from 'undici';
import { startRedis, type BenchRedis } from './lib/redis.js';
import { writeResults } from './lib/results.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--size <bytes>', 'artifact size, e.g. 1073741824, 512MiB, 1GiB', '1GiB')
  .option('--store <kind>', 'redis (a private redis-server) or memory', 'redis')
  .parse()
  .opts<{ size: string; store: string }>();

const SIZE = parseSize(o.size);
const STORE = o.store === 'memory' ? 'memory' : 'redis';
const CHUNK = 1024 * 1024; // the client yields 1 MiB slices of one random buffer
const AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0=';

function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(|k|ki|kib|m|mi|mib|g|gi|gib)$/i.exec(text.trim());
  if (m === null) throw new Error(`--size: expected bytes or a size like 512MiB or 1GiB, got ${text}`);
  const unit = (m[2] ?? '').toLowerCase()[0];
  const factor = unit === 'k' ? 2 ** 10 : unit === 'm' ? 2 ** 20 : unit === 'g' ? 2 ** 30 : 1;
  return Math.round(Number(m[1]) * factor);
}

const config = (redisUrl?: string): string => [
  `store: { kind: ${STORE}${redisUrl ? `, redisUrl: '${redisUrl}'` : ''} }`,
  'log: { level: warn }',
  // room for the multipart framing around an artifact of the full quota size
  `limits: { uploadBytes: ${SIZE + CHUNK} }`,
  `quotas: { maxArtifactSize: ${Math.max(SIZE, 1)}, maxArtifactStorage: ${Math.max(2 * SIZE, 1)} }`,
  'tenants:',
  '  - name: DEFAULT',
  `    users: [{ username: admin, password: '${ADMIN_HASH}', permissions: [ALL] }]`,
  '',
].join('\n');

async function call(base: string, method: 'GET' | 'POST', path: string, json?: unknown): Promise<unknown> {
  const res = await request(base + path, {
    method, headers: { authorization: AUTH, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, body: json === undefined ? null : JSON.stringify(json),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** The server's event-loop delay since the previous scrape (prom-client resets its histogram on each). */
async function lag(base: string): Promise<{ max: number; p99: number }> {
  const res = await request(`${base}/metrics`);
  const text = await res.body.text();
  const read = (name: string): number => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    if (m === null) throw new Error(`the server /metrics has no ${name}`);
    return Number(m[1]);
  };
  return { max: read('nodejs_eventloop_lag_max_seconds'), p99: read('nodejs_eventloop_lag_p99_seconds') };
}

async function main(): Promise<void> {
  const block = randomBytes(CHUNK);
  const boundary = `----peregrine-bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const slices = function* (): Generator<Buffer> {
    for (let sent = 0; sent < SIZE; sent += CHUNK) yield sent + CHUNK <= SIZE ? block : block.subarray(0, SIZE - sent);
  };
  // the expected sha1, computed before anything is timed
  const sha1 = createHash('sha1');
  for (const s of slices()) sha1.update(s);
  const expectedSha1 = sha1.digest('hex');

  let redis: BenchRedis | undefined;
  if (STORE === 'redis') redis = await startRedis();
  const server = await startServer(config(redis?.url));
  try {
    const base = server.url;
    const module = (await call(base, 'POST', '/rest/v1/softwaremodules', [{ name: 'bench', version: '1', type: 'os' }]) as { id: number }[])[0];
    if (module === undefined) throw new Error('no module created');
    // the same sampling while the server idles, for comparison
    await lag(base); // resets the server's delay histogram
    let idleMax = 0;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 500));
      idleMax = Math.max(idleMax, (await lag(base)).max);
    }

    let maxLag = 0;
    let maxP99 = 0;
    let peakRss = server.rss();
    let sampling = true;
    const sample = async (): Promise<void> => {
      const l = await lag(base);
      maxLag = Math.max(maxLag, l.max);
      maxP99 = Math.max(maxP99, l.p99);
      peakRss = Math.max(peakRss, server.rss());
    };
    const sampler = (async () => {
      while (sampling) {
        await new Promise((r) => setTimeout(r, 500));
        await sample();
      }
    })();

    let lastByteAt = 0;
    const started = performance.now();
    const body = async function* (): AsyncGenerator<Buffer> {
      yield head;
      yield* slices();
      yield tail;
      lastByteAt = performance.now();
    };
    const res = await request(`${base}/rest/v1/softwaremodules/${module.id}/artifacts`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + SIZE + tail.length) },
      body: Readable.from(body(), { objectMode: false }),
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await res.body.text();
    const done = performance.now();
    sampling = false;
    await sampler;
    await sample();

    if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${text.slice(0, 300)}`);
    const artifact = JSON.parse(text) as { size: number; hashes: { sha1: string } };
    if (artifact.size !== SIZE || artifact.hashes.sha1 !== expectedSha1) {
      throw new Error(`stored artifact differs: size ${artifact.size} (sent ${SIZE}), sha1 ${artifact.hashes.sha1} (sent ${expectedSha1})`);
    }
    const seconds = (done - started) / 1000;
    const sendSeconds = (lastByteAt - started) / 1000;
    const row = {
      store: STORE,
      size: SIZE,
      'total s': seconds.toFixed(2),
      'MB/s (total)': (SIZE / 1e6 / seconds).toFixed(1),
      'MiB/s (total)': (SIZE / 2 ** 20 / seconds).toFixed(1),
      'send s': sendSeconds.toFixed(2),
      'MB/s (send)': (SIZE / 1e6 / sendSeconds).toFixed(1),
      'hash+commit s': (seconds - sendSeconds).toFixed(2),
      'max event-loop delay ms': (maxLag * 1000).toFixed(1),
      'worst 500 ms p99 delay ms': (maxP99 * 1000).toFixed(1),
      'idle max delay ms': (idleMax * 1000).toFixed(1),
      'server peak RSS MiB': (peakRss / 2 ** 20).toFixed(0),
    };
    writeResults('artifact-upload', { size: SIZE, store: STORE, chunk: CHUNK }, [row], {
      mbPerSecond: SIZE / 1e6 / seconds,
      maxEventLoopDelayMs: maxLag * 1000,
    });
  } finally {
    await server.stop();
    await redis?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
