/**
 * Password hashes for config.yaml users: `scrypt$N$r$p$saltB64$hashB64` (node:crypto scrypt).
 * Successful verifications are remembered (keyed by a sha256 of the inputs, never the password
 * itself) so HTTP Basic auth pays scrypt once per user and password, not on every request.
 */
import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { LRUCache } from 'lru-cache';

// 16 MiB of memory and ~50 ms per hash: costly for guessing, fine for a login that is then cached.
const N = 16384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const HASH_FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

interface Parsed {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const verified = new LRUCache<string, true>({ max: 10_000, ttl: 15 * 60_000 }); // 15 minutes

export function hashPassword(plain: string): string {
  const salt = randomBytes(SALT_BYTES);
  return formatHash(salt, scryptSync(plain, salt, KEY_BYTES, { N, r: R, p: P, maxmem: maxmem(N, R) }));
}

/** The same hash with scrypt on the libuv thread pool, for request handling (a tenant's first user). */
export async function hashPasswordAsync(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return formatHash(salt, await scryptAsync(plain, salt, KEY_BYTES, { N, r: R, p: P, maxmem: maxmem(N, R) }));
}

/** scrypt on the libuv thread pool. */
function scryptAsync(plain: string, salt: Buffer, length: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(plain, salt, length, opts, (err, derived) => (err ? reject(err) : resolve(derived)));
  });
}

function formatHash(salt: Buffer, hash: Buffer): string {
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when `hash` has the shape hashPassword produces (and sane cost parameters). */
export function isPasswordHash(hash: string): boolean {
  return parseHash(hash) !== undefined;
}

/** Synchronous check (blocks the event loop for one scrypt on a cache miss). */
export function verifyPassword(plain: string, hash: string): boolean {
  const key = cacheKey(plain, hash);
  if (verified.has(key)) return true;
  const parsed = parseHash(hash);
  if (parsed === undefined) return false;
  const actual = scryptSync(plain, parsed.salt, parsed.hash.length, options(parsed));
  return remember(key, timingSafeEqual(actual, parsed.hash));
}

/** The same check with scrypt on the libuv thread pool, for request handling. */
export async function verifyPasswordAsync(plain: string, hash: string): Promise<boolean> {
  const key = cacheKey(plain, hash);
  if (verified.has(key)) return true;
  const parsed = parseHash(hash);
  if (parsed === undefined) return false;
  const actual = await scryptAsync(plain, parsed.salt, parsed.hash.length, options(parsed));
  return remember(key, timingSafeEqual(actual, parsed.hash));
}

function remember(key: string, ok: boolean): boolean {
  if (ok) verified.set(key, true);
  return ok;
}

// The stored hash is part of the key, so changing a user's password in config.yaml invalidates it.
function cacheKey(plain: string, hash: string): string {
  return createHash('sha256').update(hash).update('\0').update(plain).digest('base64');
}

function parseHash(hash: string): Parsed | undefined {
  const m = HASH_FORMAT.exec(hash);
  if (m === null) return undefined;
  const n = Number(m[1]);
  const r = Number(m[2]);
  const p = Number(m[3]);
  const salt = Buffer.from(m[4] ?? '', 'base64');
  const key = Buffer.from(m[5] ?? '', 'base64');
  const powerOfTwo = n > 1 && (n & (n - 1)) === 0;
  if (!powerOfTwo || n > 1 << 20 || r < 1 || p < 1 || p > 16 || salt.length < 8 || key.length < 16) return undefined;
  return { N: n, r, p, salt, hash: key };
}

function options(parsed: Parsed): { N: number; r: number; p: number; maxmem: number } {
  return { N: parsed.N, r: parsed.r, p: parsed.p, maxmem: maxmem(parsed.N, parsed.r) };
}

function maxmem(n: number, r: number): number {
  return 128 * n * r * 2 + 1024 * 1024;
}
