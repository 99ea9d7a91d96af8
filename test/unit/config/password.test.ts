import { describe, expect, it } from 'vitest';
import { hashPassword, isPasswordHash, verifyPassword, verifyPasswordAsync } from '../../../src/config/index.js';

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

  it('answers a repeated successful check from the cache (no scrypt)', () => {
    const hash = hashPassword('cached');
    expect(verifyPassword('cached', hash)).toBe(true);
    const started = performance.now();
    for (let i = 0; i < 100; i++) verifyPassword('cached', hash);
    expect(performance.now() - started).toBeLessThan(50); // 100 scrypt runs would take seconds
  });

  it.each(['', 'plain', 'scrypt$3$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'scrypt$16384$8$1$!!$??', 'bcrypt$2a$10$abc'])(
    'rejects the malformed hash %j without throwing',
    (bad) => {
      expect(isPasswordHash(bad)).toBe(false);
      expect(verifyPassword('x', bad)).toBe(false);
    },
  );
});
