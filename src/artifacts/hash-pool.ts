/**
 * The piscina pool that hashes artifacts off the event loop. Node 20 worker threads cannot load .ts
 * and get no vitest transform, so the pool always runs the compiled worker: next to this module in
 * dist/, or, when this module runs from the .ts sources (vitest), the one `npm run build` put in dist/.
 * @see STYLE.md section 9
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Digests, HashJob } from './hash.worker.js';

export type { Digests, HashJob };

/** What ArtifactStorage needs from a pool; a Piscina<HashJob, Digests> is one. */
export interface HashPool {
  run(job: HashJob, options?: { signal?: AbortSignal | null }): Promise<Digests>;
}

export interface HashPoolOptions {
  /** The compiled worker; found automatically when omitted. */
  readonly filename?: string;
  /** Default: the number of cores, at most 4 (one busy thread per concurrent upload being hashed). */
  readonly maxThreads?: number;
  /** Idle threads end after this long; default 30 seconds. */
  readonly idleTimeoutMs?: number;
}

const CANDIDATES = [
  new URL('./hash.worker.js', import.meta.url), // running from dist/src/artifacts
  new URL('../../dist/src/artifacts/hash.worker.js', import.meta.url), // running src/artifacts/*.ts (vitest)
];

/** The compiled worker file, or an Error that says where it was looked for and how to build it. */
export function hashWorkerFilename(): string {
  const paths = CANDIDATES.map((u) => fileURLToPath(u));
  const found = paths.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error(`artifact hash worker not found (looked at ${paths.join(' and ')}); run \`npm run build\` first`);
  }
  return found;
}

/** Builds the pool; the composition root closes it on shutdown (`await pool.close()`). */
export function createHashPool(options: HashPoolOptions = {}): Piscina<HashJob, Digests> {
  const filename = options.filename ?? hashWorkerFilename();
  if (!existsSync(filename)) throw new Error(`artifact hash worker not found at ${filename}; run \`npm run build\` first`);
  const maxThreads = options.maxThreads ?? Math.max(1, Math.min(4, availableParallelism()));
  return new Piscina<HashJob, Digests>({
    filename,
    // no idle threads while nobody uploads; a thread starts in a few milliseconds when one does
    minThreads: 0,
    maxThreads,
    idleTimeout: options.idleTimeoutMs ?? 30_000, // 30 seconds
    maxQueue: 'auto',
  });
}
