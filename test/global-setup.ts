import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { killStrays, startRedis } from './helpers/redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A redis-server shared by all test files; isolate data with `uniqueTenant()`. */
    redisUrl: string;
    /** A directory for this run's temporary files, removed after the run (see helpers/redis.ts). */
    testTmpDir: string;
  }
}

/** Starts one private redis-server on a free port for the whole run (never the system one on 6379). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'peregrine-test-'));
  const cleanup = (): void => {
    killStrays(root);
    rmSync(root, { recursive: true, force: true });
  };
  let redis;
  try {
    const dir = join(root, 'shared-redis');
    mkdirSync(dir);
    redis = await startRedis({ dir });
  } catch (err) {
    cleanup();
    throw err;
  }
  project.provide('redisUrl', redis.url);
  project.provide('testTmpDir', root);
  return async () => {
    await redis.stop();
    cleanup();
  };
}
