import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHashPool, hashWorkerFilename } from '../../../src/artifacts/hash-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-hash-'));
const pool = createHashPool({ maxThreads: 1 });
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the hash pool', () => {
  it('finds the compiled worker in dist/ when running from the .ts sources', () => {
    const filename = hashWorkerFilename();
    expect(filename.endsWith(join('dist', 'src', 'artifacts', 'hash.worker.js'))).toBe(true);
    expect(existsSync(filename)).toBe(true);
  });

  it('says how to fix a missing worker file', () => {
    expect(() => createHashPool({ filename: join(dir, 'nope.js') })).toThrow(/hash worker not found at .*nope\.js; run `npm run build` first/);
  });

  it('hashes a file in one pass into md5, sha1, sha256 and a byte count', async () => {
    const data = randomBytes(2_500_000);
    const path = join(dir, 'f');
    writeFileSync(path, data);
    const hex = (alg: string) => createHash(alg).update(data).digest('hex');
    expect(await pool.run({ path })).toEqual({ md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256'), bytes: data.length });
  });

  it('rejects for a file that does not exist', async () => {
    await expect(pool.run({ path: join(dir, 'missing') })).rejects.toThrow(/ENOENT/);
  });
});
