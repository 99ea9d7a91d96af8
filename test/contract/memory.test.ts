import { openMemoryStore } from '../../src/store/memory/index.js';
import { CONTRACT_SCHEMA, storeContract } from './store.contract.js';

storeContract('memory', async () => openMemoryStore(CONTRACT_SCHEMA));
