import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createHashPool } from '../../../src/artifacts/hash-pool.js';
import { ArtifactStorage } from '../../../src/artifacts/storage.js';

const MB = 1024 * 1024;
const SIZE = 64 * MB;
const CHUNK = 64 * 1024; // about what a socket delivers

const pool = createHashPool({ maxThreads: 1 });
const dataDir = mkdtempSync(join(tmpdir(), 'peregrine-artifacts-large-'));
afterAll(async () => {
  await pool.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a 64 MB upload', () => {
  it('hashes like node:crypto and keeps the event loop responsive', async () => {
    // the data and its expected hashes are made before measuring: only ingest runs while the monitor does
    const data = Buffer.alloc(SIZE);
    for (let i = 0; i < SIZE; i += 4) data.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, i);
    const want = Object.fromEntries(['md5', 'sha1', 'sha256'].map((alg) => [alg, createHash(alg).update(data).digest('hex')]));

    async function* socket(): AsyncGenerator<Buffer> {
      for (let i = 0; i < SIZE; i += CHUNK) {
        if (i % (16 * CHUNK) === 0) await tick(); // let I/O and timers in, as a real socket would
        yield data.subarray(i, i + CHUNK);
      }
    }

    const storage = new ArtifactStorage({ dataDir, hashPool: pool });
    await storage.usedBytes('DEFAULT'); // the first scan is not part of the measurement
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const started = performance.now();
    const result = await storage.ingest('DEFAULT', socket(), { maxBytes: SIZE });
    const elapsed = performance.now() - started;
    delay.disable();

    expect(result.size).toBe(SIZE);
    expect(result.hashes).toEqual(want);
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    console.log(
      `64 MB ingest: ${elapsed.toFixed(0)} ms; event-loop delay max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms, mean ${ms(delay.mean)} ms (sampled every 1 ms; figures include that 1 ms)`,
    );
  }, 60_000);
});
