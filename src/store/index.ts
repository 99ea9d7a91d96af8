import { openMemoryStore } from './memory/index.js';
import type { Schema, Store } from './port.js';
import type { RedisStoreOptions } from './redis/index.js';

export interface OpenStoreOptions {
  readonly kind: 'memory' | 'redis';
  /** For `redis`: `redis://[[user]:password@]host:port[/db]`. */
  readonly redisUrl?: string;
  /** For `redis` on a Redis Cluster: URLs of some of its nodes (credentials and TLS of the first apply to all); wins over redisUrl. */
  readonly redisCluster?: readonly string[];
  readonly schema: Schema;
  /** Timeouts, reconnect pacing and the connection-error listener of the redis store. */
  readonly redis?: RedisStoreOptions;
}

/**
 * The one place the composition root gets its Store from. The redis adapter is imported only when
 * asked for, so the embedded default does not load node-redis.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  switch (options.kind) {
    case 'memory':
      return openMemoryStore(options.schema);
    case 'redis': {
      const cluster = options.redisCluster ?? [];
      if (cluster.length === 0 && (options.redisUrl === undefined || options.redisUrl === '')) {
        throw new TypeError('store kind redis needs redisUrl or redisCluster');
      }
      const { openRedisStore } = await import('./redis/index.js');
      return openRedisStore(cluster.length > 0 ? cluster : options.redisUrl!, options.schema, options.redis);
    }
    default:
      throw new TypeError(`unknown store kind ${JSON.stringify((options as { kind: unknown }).kind)}`);
  }
}

export { openMemoryStore };
export type { RedisStoreOptions };
