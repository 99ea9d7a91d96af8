import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createHashPool } from '../../../src/artifacts/hash-pool.js';
import { HotArtifacts } from '../../../src/artifacts/hot-cache.js';
import { ArtifactStorage } from '../../../src/artifacts/storage.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-hot-'));
const pool = createHashPool({ maxThreads: 1 });
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pool.close();
});

function file(name: string, bytes: number): { path: string; data: Buffer; mtimeMs: number } {
  const path = join(dir, name);
  const data = randomBytes(bytes);
  writeFileSync(path, data);
  return { path, data, mtimeMs: statSync(path).mtimeMs };
}

/** Misses `key` twice (the second loads it) and waits until it is cached. */
async function warm(cache: HotArtifacts, key: string, f: { path: string; data: Buffer; mtimeMs: number }): Promise<void> {
  cache.missed(key, f.path, f.data.length, f.mtimeMs);
  cache.missed(key, f.path, f.data.length, f.mtimeMs);
  await vi.waitFor(() => expect(cache.get(key)).toBeDefined());
}

describe('HotArtifacts', () => {
  it('keeps a binary from its second download on, as the file\'s bytes and mtime', async () => {
    const cache = new HotArtifacts(1000);
    const f = file('a', 100);
    cache.missed('a', f.path, 100, f.mtimeMs);
    await new Promise((r) => setTimeout(r, 50));
    expect(cache.get('a')).toBeUndefined(); // one download is not hot
    cache.missed('a', f.path, 100, f.mtimeMs);
    await vi.waitFor(() => expect(cache.get('a')).toBeDefined());
    expect(cache.get('a')?.bytes.equals(f.data)).toBe(true);
    expect(cache.get('a')?.mtimeMs).toBe(f.mtimeMs);
    expect(cache.bytes).toBe(100);
  });

  it('stays within its bound, the least recently used out first', async () => {
    const cache = new HotArtifacts(250);
    const [a, b, c] = [file('lru-a', 100), file('lru-b', 100), file('lru-c', 100)];
    await warm(cache, 'a', a);
    await warm(cache, 'b', b);
    cache.get('a'); // a is now used more recently than b
    await warm(cache, 'c', c);
    expect(cache.bytes).toBeLessThanOrEqual(250);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.bytes.equals(a.data)).toBe(true);
    expect(cache.get('c')?.bytes.equals(c.data)).toBe(true);
  });

  it('keeps nothing larger than the bound, and nothing at all with a bound of 0', async () => {
    const big = file('big', 300);
    for (const capacity of [0, 299]) {
      const cache = new HotArtifacts(capacity);
      for (let i = 0; i < 3; i++) cache.missed('big', big.path, 300, big.mtimeMs);
      await new Promise((r) => setTimeout(r, 50));
      expect(cache.get('big')).toBeUndefined();
      expect(cache.bytes).toBe(0);
    }
  });

  it('forgets a dropped binary, also one dropped while it loads', async () => {
    const cache = new HotArtifacts(1000);
    const f = file('drop', 100);
    await warm(cache, 'x', f);
    cache.drop('x');
    expect(cache.get('x')).toBeUndefined();
    expect(cache.bytes).toBe(0);
    cache.missed('y', f.path, 100, f.mtimeMs);
    cache.missed('y', f.path, 100, f.mtimeMs); // the load starts
    cache.drop('y');
    await new Promise((r) => setTimeout(r, 50));
    expect(cache.get('y')).toBeUndefined();
  });

  it('keeps nothing when the file is not the size the download saw', async () => {
    const cache = new HotArtifacts(1000);
    const f = file('size', 100);
    cache.missed('s', f.path, 99, f.mtimeMs);
    cache.missed('s', f.path, 99, f.mtimeMs);
    await new Promise((r) => setTimeout(r, 50));
    expect(cache.get('s')).toBeUndefined();
  });
});

describe('ArtifactStorage.openHot', () => {
  async function* once(data: Buffer): AsyncGenerator<Buffer> {
    yield data;
  }

  it('serves a hot binary from memory until it is removed', async () => {
    const dataDir = mkdtempSync(join(dir, 'store-'));
    const storage = new ArtifactStorage({ dataDir, hashPool: pool, hotCacheBytes: 10_000 });
    const data = randomBytes(5000);
    const { hashes } = await storage.ingest('t1', once(data), { maxBytes: 10_000 });
    const first = await storage.openHot('t1', hashes.sha1);
    expect(first.bytes).toBeUndefined();
    expect(first.storedAs).toBe(`t1/${hashes.sha1.slice(0, 2)}/${hashes.sha1}`);
    await storage.openHot('t1', hashes.sha1);
    await vi.waitFor(() => expect(storage.hotBytes).toBe(5000));
    const hot = await storage.openHot('t1', hashes.sha1);
    expect(hot.bytes?.equals(data)).toBe(true);
    expect([hot.size, hot.mtimeMs, hot.path]).toEqual([first.size, first.mtimeMs, first.path]);
    // another tenant's identical content is its own entry: not served from t1's
    const other = await storage.ingest('t2', once(data), { maxBytes: 10_000 });
    expect((await storage.openHot('t2', other.hashes.sha1)).bytes).toBeUndefined();

    expect(await storage.remove('t1', hashes.sha1)).toBe(true);
    expect(storage.hotBytes).toBe(0);
    await expect(storage.openHot('t1', hashes.sha1)).rejects.toMatchObject({ code: 'ARTIFACT_BINARY_DELETED' });
  });
});
