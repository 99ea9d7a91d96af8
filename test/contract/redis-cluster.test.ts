import { inject } from 'vitest';
import { openRedisStore } from '../../src/store/redis/index.js';
import { CONTRACT_SCHEMA, storeContract } from './store.contract.js';

// the 3-master Redis Cluster of the global setup; every test's tenant hashes to a slot of its own
storeContract('redis cluster', () => openRedisStore(inject('redisClusterUrls'), CONTRACT_SCHEMA), 'redis');
