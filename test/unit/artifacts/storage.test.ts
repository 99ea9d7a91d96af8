import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHashPool } from '../../../src/artifacts/hash-pool.js';
import { ArtifactStorage } from '../../../src/artifacts/storage.js';
import { AppError } from '../../../src/domain/errors.js';

const pool = createHashPool({ maxThreads: 1 });
afterAll(() => pool.close());

let dataDir: string;
let storage: ArtifactStorage;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'peregrine-artifacts-'));
  storage = new ArtifactStorage({ dataDir, hashPool: pool });
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const MB = 1024 * 1024;
const LIMIT = 10 * MB;

async function* chunksOf(data: Buffer, size = 64 * 1024): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) {
    await Promise.resolve();
    yield data.subarray(i, i + size);
  }
}

function digests(data: Buffer) {
  const h = (alg: string) => createHash(alg).update(data).digest('hex');
  return { md5: h('md5'), sha1: h('sha1'), sha256: h('sha256') };
}

/** Every file under dataDir (tmp and artifacts), relative. */
function filesOnDisk(): string[] {
  return (readdirSync(dataDir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dataDir.length + 1))
    .sort();
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('ArtifactStorage.ingest', () => {
  it('stores content-addressed and returns the md5, sha1 and sha256 node:crypto computes', async () => {
    const data = randomBytes(3 * MB + 17);
    const result = await storage.ingest('DEFAULT', chunksOf(data), { maxBytes: LIMIT });
    const want = digests(data);
    expect(result).toEqual({ size: data.length, hashes: want, key: `artifacts/DEFAULT/${want.sha1.slice(0, 2)}/${want.sha1}` });
    expect(filesOnDisk()).toEqual([result.key]);
    expect(readFileSync(join(dataDir, result.key)).equals(data)).toBe(true);
    const opened = await storage.open('DEFAULT', want.sha1.toUpperCase());
    expect(opened).toMatchObject({ path: join(dataDir, result.key), size: data.length });
  });

  it('accepts matching checksums in any case', async () => {
    const data = randomBytes(1000);
    const want = digests(data);
    const expected = { md5: want.md5.toUpperCase(), sha1: ` ${want.sha1} `, sha256: want.sha256.toUpperCase() };
    await expect(storage.ingest('DEFAULT', chunksOf(data), { maxBytes: LIMIT, expected })).resolves.toMatchObject({ hashes: want });
  });

  it.each([
    ['md5', 'MD5_MISMATCH'],
    ['sha1', 'SHA1_MISMATCH'],
    ['sha256', 'SHA256_MISMATCH'],
  ] as const)('refuses a %s mismatch, naming both values, and leaves no file', async (alg, code) => {
    const data = randomBytes(200_000);
    const actual = digests(data)[alg];
    const wrong = 'ab'.repeat(actual.length / 2);
    const err = await failure(storage.ingest('DEFAULT', chunksOf(data), { maxBytes: LIMIT, expected: { [alg]: wrong } }));
    expect(err.code).toBe(code);
    expect(err.status).toBe(400);
    expect(err.message).toBe(`${alg} checksum mismatch: expected ${wrong}, computed ${actual}`);
    expect(filesOnDisk()).toEqual([]);
    expect(await storage.usedBytes('DEFAULT')).toBe(0);
  });

  it('refuses an upload over maxBytes, naming the limit, and leaves no file', async () => {
    const err = await failure(storage.ingest('DEFAULT', chunksOf(randomBytes(MB + 1)), { maxBytes: MB }));
    expect(err.code).toBe('FILE_SIZE_QUOTA_EXCEEDED');
    expect(err.message).toContain(`${MB} bytes`);
    expect(filesOnDisk()).toEqual([]);
  });

  it('refuses an upload that would exceed the storage quota, naming it, and leaves no new file', async () => {
    const first = await storage.ingest('DEFAULT', chunksOf(randomBytes(600_000)), { maxBytes: LIMIT, maxStorageBytes: MB });
    const err = await failure(storage.ingest('DEFAULT', chunksOf(randomBytes(500_000)), { maxBytes: LIMIT, maxStorageBytes: MB }));
    expect(err.code).toBe('STORAGE_QUOTA_EXCEEDED');
    expect(err.message).toBe(`the artifact storage quota of ${MB} bytes would be exceeded (600000 bytes in use)`);
    expect(filesOnDisk()).toEqual([first.key]);
    // what still fits is accepted, and the file-size limit keeps its own error when it is the smaller one
    await expect(storage.ingest('DEFAULT', chunksOf(randomBytes(400_000)), { maxBytes: LIMIT, maxStorageBytes: MB })).resolves.toMatchObject({ size: 400_000 });
    const big = await failure(storage.ingest('other', chunksOf(randomBytes(300_000)), { maxBytes: 200_000, maxStorageBytes: MB }));
    expect(big.code).toBe('FILE_SIZE_QUOTA_EXCEEDED');
  });

  it('accepts an upload of exactly maxBytes', async () => {
    await expect(storage.ingest('DEFAULT', chunksOf(randomBytes(MB)), { maxBytes: MB })).resolves.toMatchObject({ size: MB });
  });

  it('refuses an empty upload with UPLOAD_FAILED and leaves no file', async () => {
    const err = await failure(storage.ingest('DEFAULT', chunksOf(Buffer.alloc(0)), { maxBytes: LIMIT }));
    expect(err.code).toBe('UPLOAD_FAILED');
    expect(err.message).toBe('file is empty');
    expect(filesOnDisk()).toEqual([]);
  });

  it('leaves nothing when the client goes away mid-stream, even if the producer never settles again', async () => {
    const controller = new AbortController();
    async function* hangs(): AsyncGenerator<Buffer> {
      yield randomBytes(2 * MB);
      yield randomBytes(64 * 1024);
      setTimeout(() => controller.abort(), 20);
      await new Promise(() => undefined); // a socket that went silent
    }
    const err = await failure(storage.ingest('DEFAULT', hangs(), { maxBytes: LIMIT, signal: controller.signal }));
    expect(err.code).toBe('UPLOAD_FAILED');
    expect(err.message).toContain('aborted');
    expect(filesOnDisk()).toEqual([]);
  });

  it('leaves nothing when the upload stream fails (truncated body)', async () => {
    async function* truncated(): AsyncGenerator<Buffer> {
      yield randomBytes(3 * MB);
      throw new Error('the client closed the connection');
    }
    const err = await failure(storage.ingest('DEFAULT', truncated(), { maxBytes: LIMIT }));
    expect(err.code).toBe('UPLOAD_FAILED');
    expect(err.message).toContain('the client closed the connection');
    expect(filesOnDisk()).toEqual([]);
  });

  it('passes an AppError of the stream through (the HTTP layer 413)', async () => {
    async function* tooLarge(): AsyncGenerator<Buffer> {
      yield randomBytes(10);
      throw new AppError('PAYLOAD_TOO_LARGE', 'request body exceeds the limit of 10 bytes');
    }
    expect((await failure(storage.ingest('DEFAULT', tooLarge(), { maxBytes: LIMIT }))).code).toBe('PAYLOAD_TOO_LARGE');
    expect(filesOnDisk()).toEqual([]);
  });

  it('leaves nothing when the client goes away while the upload is being hashed', async () => {
    const controller = new AbortController();
    const abortingPool = {
      run: (job: { path: string }, options?: { signal?: AbortSignal | null }) => {
        controller.abort(); // the socket closes just as hashing starts
        return pool.run(job, options);
      },
    };
    const aborting = new ArtifactStorage({ dataDir, hashPool: abortingPool });
    const err = await failure(aborting.ingest('DEFAULT', chunksOf(randomBytes(MB)), { maxBytes: LIMIT, signal: controller.signal }));
    expect(err.code).toBe('UPLOAD_FAILED');
    expect(err.message).toContain('aborted');
    expect(filesOnDisk()).toEqual([]);
  });

  it('refuses at once when the signal is already aborted', async () => {
    const err = await failure(storage.ingest('DEFAULT', chunksOf(randomBytes(10)), { maxBytes: LIMIT, signal: AbortSignal.abort() }));
    expect(err.code).toBe('UPLOAD_FAILED');
    expect(filesOnDisk()).toEqual([]);
  });

  it('stores identical content once per tenant and counts it once', async () => {
    const data = randomBytes(500_000);
    const [a, b] = await Promise.all([
      storage.ingest('DEFAULT', chunksOf(data), { maxBytes: LIMIT }),
      storage.ingest('DEFAULT', chunksOf(data), { maxBytes: LIMIT }),
    ]);
    expect(a.key).toBe(b.key);
    const c = await storage.ingest('other', chunksOf(data), { maxBytes: LIMIT });
    expect(filesOnDisk()).toEqual([a.key, c.key].sort());
    expect(await storage.usedBytes('DEFAULT')).toBe(data.length);
    expect(await storage.usedBytes('other')).toBe(data.length);
  });

  it('keeps tenant names inside the data directory', async () => {
    const data = randomBytes(100);
    const { key } = await storage.ingest('../evil/..', chunksOf(data), { maxBytes: LIMIT });
    expect(key.startsWith('artifacts/%2E%2E%2Fevil%2F%2E%2E/')).toBe(true);
    expect(filesOnDisk()).toEqual([key]);
  });
});

describe('ArtifactStorage.open, remove and usedBytes', () => {
  it('counts stored bytes, keeps the count across remove, and rescans after a restart', async () => {
    const one = randomBytes(1000);
    const two = randomBytes(2500);
    const a = await storage.ingest('DEFAULT', chunksOf(one), { maxBytes: LIMIT });
    const b = await storage.ingest('DEFAULT', chunksOf(two), { maxBytes: LIMIT });
    expect(await storage.usedBytes('DEFAULT')).toBe(3500);
    expect(await new ArtifactStorage({ dataDir, hashPool: pool }).usedBytes('DEFAULT')).toBe(3500);

    expect(await storage.remove('DEFAULT', a.hashes.sha1)).toBe(true);
    expect(await storage.remove('DEFAULT', a.hashes.sha1)).toBe(false); // twice is fine
    expect(await storage.usedBytes('DEFAULT')).toBe(2500);
    expect(filesOnDisk()).toEqual([b.key]);
    expect(await storage.usedBytes('nobody')).toBe(0);
  });

  it('answers ARTIFACT_BINARY_DELETED (410) for content that is gone', async () => {
    const err = await failure(storage.open('DEFAULT', 'a'.repeat(40)));
    expect(err.code).toBe('ARTIFACT_BINARY_DELETED');
    expect(err.status).toBe(410);
  });

  it('refuses a sha1 that is not 40 hex digits (no path tricks)', async () => {
    expect((await failure(storage.open('DEFAULT', '../../etc/passwd'))).code).toBe('ARTIFACT_LOAD_FAILED');
    expect((await failure(storage.remove('DEFAULT', 'zz'))).code).toBe('ARTIFACT_LOAD_FAILED');
  });

  it('sweeps only old temporary files', async () => {
    await storage.ingest('DEFAULT', chunksOf(randomBytes(10)), { maxBytes: LIMIT }); // creates tmp/
    writeFileSync(join(dataDir, 'tmp', 'fresh.part'), 'x');
    expect(await storage.sweepTemp(60_000)).toBe(0);
    expect(await storage.sweepTemp(-1)).toBe(1);
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    expect(statSync(join(dataDir, 'tmp')).isDirectory()).toBe(true);
  });
});
