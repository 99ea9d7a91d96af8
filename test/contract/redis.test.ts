import { inject } from 'vitest';
import { openRedisStore } from '../../src/store/redis/index.js';
import { CONTRACT_SCHEMA, storeContract } from './store.contract.js';

// every test gets its own tenant (useStore), so files and workers share the one global redis-server
storeContract('redis', () => openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA));
