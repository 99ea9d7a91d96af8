/**
 * Artifact binaries on the local file system, content-addressed per tenant:
 * `<dataDir>/artifacts/<tenant>/<sha1[0:2]>/<sha1>`. An upload goes to `<dataDir>/tmp` first, is hashed
 * in the worker pool (one pass: md5, sha1, sha256), checked against the checksums the client sent,
 * and only then linked into place; whatever fails, the temporary file is removed.
 * No synchronous fs call sits on any of these paths.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError, type ErrorCode } from '../domain/errors.js';
import type { Hashes } from '../domain/repository.js';
import type { Digests, HashPool } from './hash-pool.js';
import { HotArtifacts, type HotBinary } from './hot-cache.js';
import { uploadAborted, writeTemp } from './write-temp.js';

export interface ArtifactStorageOptions {
  readonly dataDir: string;
  readonly hashPool: HashPool;
  /** Memory for the binaries being downloaded most (`artifacts.hotCacheBytes`); 0 or absent: none. */
  readonly hotCacheBytes?: number;
}

export interface IngestOptions {
  /** Largest accepted artifact in bytes (hawkBit's max-artifact-size). */
  readonly maxBytes: number;
  /**
   * The tenant's storage quota in bytes (hawkBit's max-artifact-storage), enforced while the bytes
   * arrive: the upload may use what `usedBytes` leaves free when it starts.
   */
  readonly maxStorageBytes?: number | undefined;
  /** Aborts the upload (the client went away); the temporary file is removed. */
  readonly signal?: AbortSignal | undefined;
  /** Checksums the client sent (hex, any case); each one given must match. */
  readonly expected?: Partial<Hashes> | undefined;
}

export interface Ingested {
  readonly size: number;
  /** Lower-case hex. */
  readonly hashes: Hashes;
  /** Where the binary lives, relative to dataDir (informational; `open` takes the sha1). */
  readonly key: string;
}

export interface StoredBinary {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Where it lies under `<dataDir>/artifacts/`: `<tenant>/<sha1[0:2]>/<sha1>` (the X-Accel-Redirect target). */
  readonly storedAs: string;
  /** The whole binary, when `openHot` found it in memory. */
  readonly bytes?: Buffer | undefined;
}

const SHA1 = /^[0-9a-f]{40}$/;
const CHECKS = [
  ['md5', 'MD5_MISMATCH'],
  ['sha1', 'SHA1_MISMATCH'],
  ['sha256', 'SHA256_MISMATCH'],
] as const satisfies readonly (readonly [keyof Hashes, ErrorCode])[];
// errno codes meaning "this file system has no hard links": fall back to rename
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK']);

export class ArtifactStorage {
  readonly #root: string;
  readonly #tmp: string;
  readonly #pool: HashPool;
  /** Bytes stored per tenant: scanned once from disk, then kept up to date by ingest and remove. */
  readonly #usage = new Map<string, Promise<{ bytes: number }>>();
  #tmpReady: Promise<unknown> | undefined;
  readonly #hot: HotArtifacts;

  constructor(options: ArtifactStorageOptions) {
    this.#root = options.dataDir;
    this.#tmp = join(options.dataDir, 'tmp');
    this.#pool = options.hashPool;
    this.#hot = new HotArtifacts(options.hotCacheBytes ?? 0);
  }

  /**
   * Stores an upload. Throws AppError FILE_SIZE_QUOTA_EXCEEDED, STORAGE_QUOTA_EXCEEDED, UPLOAD_FAILED
   * (empty, aborted, truncated) or MD5/SHA1/SHA256_MISMATCH; nothing is left on disk when it throws.
   */
  async ingest(tenant: string, chunks: AsyncIterable<Uint8Array>, opts: IngestOptions): Promise<Ingested> {
    const tenantDir = tenantDirName(tenant);
    this.#tmpReady ??= mkdir(this.#tmp, { recursive: true }).catch((err: unknown) => {
      this.#tmpReady = undefined;
      throw err;
    });
    await this.#tmpReady;
    const limit = await this.#limit(tenant, opts);
    const tmp = join(this.#tmp, `${randomUUID()}.part`);
    try {
      const size = await writeTemp(tmp, chunks, { maxBytes: limit.bytes, tooLarge: limit.error, signal: opts.signal });
      if (size === 0) throw new AppError('UPLOAD_FAILED', 'file is empty');
      let digests: Digests;
      try {
        digests = await this.#pool.run({ path: tmp }, { signal: opts.signal ?? null });
      } catch (err) {
        throw opts.signal?.aborted === true ? uploadAborted(err) : err;
      }
      if (digests.bytes !== size) {
        throw new Error(`hashed ${digests.bytes} bytes of an upload of ${size} bytes (${tmp} changed while hashing)`);
      }
      const hashes: Hashes = { md5: digests.md5, sha1: digests.sha1, sha256: digests.sha256 };
      verify(opts.expected, hashes);
      const key = `artifacts/${tenantDir}/${hashes.sha1.slice(0, 2)}/${hashes.sha1}`;
      await this.#place(tenant, tmp, storedAsOf(tenant, hashes.sha1), size);
      return { size, hashes, key };
    } finally {
      // already gone after a link or rename; a failure here leaves a file for sweepTemp, not a new error
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  /** The stored binary, or AppError ARTIFACT_BINARY_DELETED (410) / ARTIFACT_LOAD_FAILED (500). */
  async open(tenant: string, sha1: string): Promise<StoredBinary> {
    const storedAs = storedAsOf(tenant, sha1);
    const path = join(this.#root, 'artifacts', storedAs);
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new Error(`${path} is not a regular file`);
      return { path, size: st.size, mtimeMs: st.mtimeMs, storedAs };
    } catch (err) {
      if (errno(err) === 'ENOENT') throw new AppError('ARTIFACT_BINARY_DELETED', `the binary of artifact ${sha1} is no longer stored`, { cause: err });
      throw new AppError('ARTIFACT_LOAD_FAILED', `the binary of artifact ${sha1} cannot be read`, { cause: err });
    }
  }

  /**
   * As `open`, for a download: the binary's bytes from memory when it is hot (no file system call at
   * all), else as `open`, counting the download towards making it hot (see hot-cache.ts).
   */
  async openHot(tenant: string, sha1: string): Promise<StoredBinary> {
    const storedAs = storedAsOf(tenant, sha1);
    const hot = this.hotAt(storedAs);
    if (hot !== undefined) {
      return { path: join(this.#root, 'artifacts', storedAs), size: hot.bytes.length, mtimeMs: hot.mtimeMs, storedAs, bytes: hot.bytes };
    }
    const binary = await this.open(tenant, sha1);
    this.#hot.missed(storedAs, binary.path, binary.size, binary.mtimeMs);
    return binary;
  }

  /** Where the binary of `sha1` lies under the artifacts directory (StoredBinary.storedAs): the key of `hotAt`. */
  storedAs(tenant: string, sha1: string): string {
    return storedAsOf(tenant, sha1);
  }

  /**
   * The binary stored as `storedAs` while it is in memory (now the most recently used), else undefined;
   * no file system call, and no count towards making it hot (openHot counts).
   */
  hotAt(storedAs: string): HotBinary | undefined {
    return this.#hot.get(storedAs);
  }

  /** Bytes of binaries held in memory for downloads. */
  get hotBytes(): number {
    return this.#hot.bytes;
  }

  /**
   * Deletes stored content; call only when no artifact record refers to it any more.
   * Returns false when it was not there (deleting twice is fine).
   */
  async remove(tenant: string, sha1: string): Promise<boolean> {
    const path = this.#pathOf(tenant, sha1);
    const usage = await this.#usageOf(tenant);
    try {
      this.#hot.drop(storedAsOf(tenant, sha1));
      const { size } = await stat(path);
      await unlink(path);
      usage.bytes -= size;
      return true;
    } catch (err) {
      if (errno(err) === 'ENOENT') return false;
      throw new AppError('ARTIFACT_DELETE_FAILED', `the binary of artifact ${sha1} could not be deleted`, { cause: err });
    }
  }

  /** Deletes every stored binary of a tenant (the tenant was deleted, src/tenancy/registry.ts). */
  async dropTenant(tenant: string): Promise<void> {
    await rm(join(this.#root, 'artifacts', tenantDirName(tenant)), { recursive: true, force: true });
    this.#usage.delete(tenant);
  }

  /** Sum of the tenant's stored binaries in bytes (for the storage quota); kept in memory after a first scan. */
  async usedBytes(tenant: string): Promise<number> {
    return (await this.#usageOf(tenant)).bytes;
  }

  /** Removes temporary files left by a crash; older than `olderThanMs` so other processes' uploads survive. */
  async sweepTemp(olderThanMs = 6 * 3_600_000): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.#tmp);
    } catch (err) {
      if (errno(err) === 'ENOENT') return 0;
      throw err;
    }
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      const path = join(this.#tmp, name);
      const st = await stat(path).catch(() => undefined);
      if (st !== undefined && st.mtimeMs < cutoff) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async #limit(tenant: string, opts: IngestOptions): Promise<{ bytes: number; error: () => AppError }> {
    const fileLimit = { bytes: opts.maxBytes, error: () => new AppError('FILE_SIZE_QUOTA_EXCEEDED', `the artifact exceeds the maximum file size of ${opts.maxBytes} bytes`) };
    const quota = opts.maxStorageBytes;
    if (quota === undefined) return fileLimit;
    const used = await this.usedBytes(tenant);
    const room = Math.max(0, quota - used);
    if (room >= opts.maxBytes) return fileLimit;
    const error = (): AppError => new AppError('STORAGE_QUOTA_EXCEEDED', `the artifact storage quota of ${quota} bytes would be exceeded (${used} bytes in use)`);
    return { bytes: room, error };
  }

  async #place(tenant: string, tmp: string, storedAs: string, size: number): Promise<void> {
    const final = join(this.#root, 'artifacts', storedAs);
    // the first scan must finish before this file exists, or it would be counted twice
    const usage = await this.#usageOf(tenant);
    await mkdir(dirname(final), { recursive: true });
    try {
      await link(tmp, final); // atomic, and fails if the content is already stored
      usage.bytes += size;
      return;
    } catch (err) {
      const code = errno(err);
      if (code !== 'EEXIST' && !NO_LINKS.has(code)) throw err;
    }
    const existing = await stat(final).catch(() => undefined);
    if (existing !== undefined && existing.size === size) return; // identical content is stored once
    // no hard links here, or a damaged copy (wrong size) to replace; rename is atomic too
    await rename(tmp, final);
    this.#hot.drop(storedAs);
    usage.bytes += size - (existing?.size ?? 0);
  }

  #pathOf(tenant: string, sha1: string): string {
    return join(this.#root, 'artifacts', storedAsOf(tenant, sha1));
  }

  #usageOf(tenant: string): Promise<{ bytes: number }> {
    let usage = this.#usage.get(tenant);
    if (usage === undefined) {
      usage = scanBytes(join(this.#root, 'artifacts', tenantDirName(tenant))).then((bytes) => ({ bytes }));
      usage.catch(() => this.#usage.delete(tenant)); // retry the scan next time
      this.#usage.set(tenant, usage);
    }
    return usage;
  }
}

/** `<tenant>/<sha1[0:2]>/<sha1>`: where the binary lies under `<dataDir>/artifacts/`. */
function storedAsOf(tenant: string, sha1: string): string {
  const hex = sha1.toLowerCase();
  if (!SHA1.test(hex)) throw new AppError('ARTIFACT_LOAD_FAILED', `not a sha1 hash: ${JSON.stringify(sha1)}`);
  return `${tenantDirName(tenant)}/${hex.slice(0, 2)}/${hex}`;
}

function verify(expected: Partial<Hashes> | undefined, actual: Hashes): void {
  if (expected === undefined) return;
  for (const [name, code] of CHECKS) {
    const want = expected[name]?.trim().toLowerCase();
    if (want === undefined || want === '') continue; // not supplied
    if (want !== actual[name]) {
      throw new AppError(code, `${name} checksum mismatch: expected ${want}, computed ${actual[name]}`);
    }
  }
}

/** Tenant names become one path segment: percent-encoded, dots too, so no name can climb out. */
function tenantDirName(tenant: string): string {
  if (tenant.length === 0) throw new Error('tenant name is empty');
  return encodeURIComponent(tenant).replace(/\./g, '%2E');
}

async function scanBytes(dir: string): Promise<number> {
  let prefixes: string[];
  try {
    prefixes = await readdir(dir);
  } catch (err) {
    if (errno(err) === 'ENOENT') return 0;
    throw err;
  }
  let total = 0;
  for (const prefix of prefixes) {
    const names = await readdir(join(dir, prefix)).catch(() => [] as string[]);
    const sizes = await Promise.all(names.map((n) => stat(join(dir, prefix, n)).then((s) => (s.isFile() ? s.size : 0), () => 0)));
    for (const s of sizes) total += s;
  }
  return total;
}

function errno(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : '';
}
