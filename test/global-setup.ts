import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { killStrays, startRedis } from './helpers/redis.js';
import { startRedisCluster } from './helpers/redis-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A redis-server shared by all test files; isolate data with `uniqueTenant()`. */
    redisUrl: string;
    /** The nodes of a 3-master Redis Cluster shared by all test files, likewise. */
    redisClusterUrls: readonly string[];
    /** A directory for this run's temporary files, removed after the run (see helpers/redis.ts). */
    testTmpDir: string;
  }
}

/**
 * Starts one private redis-server and one private 3-master Redis Cluster on free ports for the whole
 * run (never the system Redis on 6379).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'peregrine-test-'));
  const cleanup = (): void => {
    killStrays(root);
    rmSync(root, { recursive: true, force: true });
  };
  mkdirSync(join(root, 'shared-redis'));
  mkdirSync(join(root, 'shared-cluster'));
  const [single, clustered] = await Promise.allSettled([
    startRedis({ dir: join(root, 'shared-redis') }),
    startRedisCluster({ dir: join(root, 'shared-cluster') }),
  ]);
  if (single.status === 'rejected' || clustered.status === 'rejected') {
    await Promise.all([single, clustered].map(async (r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    cleanup();
    throw single.status === 'rejected' ? single.reason : (clustered as PromiseRejectedResult).reason;
  }
  const [redis, cluster] = [single.value, clustered.value];
  project.provide('redisUrl', redis.url);
  project.provide('redisClusterUrls', cluster.urls);
  project.provide('testTmpDir', root);
  return async () => {
    await Promise.all([redis.stop(), cluster.stop()]);
    cleanup();
  };
}
