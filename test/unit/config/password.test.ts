import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { hashPassword, isPasswordHash, verifyPassword, verifyPasswordAsync } from '../../../src/config/index.js';

// scrypt counted: a check answered from the cache runs none
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return { ...real, scryptSync: vi.fn(real.scryptSync), scrypt: vi.fn(real.scrypt) };
});

describe('password hashes', () => {
  it('produces scrypt$N$r$p$salt$hash and verifies it', async () => {
    const hash = hashPassword('s3cret');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
    expect(isPasswordHash(hash)).toBe(true);
    expect(verifyPassword('s3cret', hash)).toBe(true);
    expect(verifyPassword('s3cret!', hash)).toBe(false);
    expect(await verifyPasswordAsync('s3cret', hash)).toBe(true);
    expect(await verifyPasswordAsync('wrong', hash)).toBe(false);
  });

  it('salts every hash', () => {
    expect(hashPassword('same')).not.toBe(hashPassword('same'));
  });

  it('answers a repeated successful check from the cache (no scrypt)', async () => {
    const hash = hashPassword('cached');
    expect(verifyPassword('cached', hash)).toBe(true);
    const scryptRuns = (): number => vi.mocked(crypto.scryptSync).mock.calls.length + vi.mocked(crypto.scrypt).mock.calls.length;
    const before = scryptRuns();
    for (let i = 0; i < 100; i++) expect(verifyPassword('cached', hash)).toBe(true);
    expect(await verifyPasswordAsync('cached', hash)).toBe(true);
    expect(scryptRuns()).toBe(before);
    // a failed check is not remembered: scrypt runs again
    expect(verifyPassword('wrong', hash)).toBe(false);
    expect(scryptRuns()).toBe(before + 1);
  });

  it.each(['', 'plain', 'scrypt$3$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'scrypt$16384$8$1$!!$??', 'bcrypt$2a$10$abc'])(
    'rejects the malformed hash %j without throwing',
    (bad) => {
      expect(isPasswordHash(bad)).toBe(false);
      expect(verifyPassword('x', bad)).toBe(false);
    },
  );
});
