import { openMemoryStore } from './memory/index.js';
import type { Schema, Store } from './port.js';
import type { RedisStoreOptions } from './redis/index.js';

export interface OpenStoreOptions {
  readonly kind: 'memory' | 'redis';
  /** Required for `redis`: `redis://[[user]:password@]host:port[/db]`. */
  readonly redisUrl?: string;
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
      if (options.redisUrl === undefined || options.redisUrl === '') throw new TypeError('store kind redis needs redisUrl');
      const { openRedisStore } = await import('./redis/index.js');
      return openRedisStore(options.redisUrl, options.schema, options.redis);
    }
    default:
      throw new TypeError(`unknown store kind ${JSON.stringify((options as { kind: unknown }).kind)}`);
  }
}

export { openMemoryStore };
export type { RedisStoreOptions };
