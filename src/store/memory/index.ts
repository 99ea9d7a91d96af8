import type { Schema, Store } from '../port.js';
import { MemoryStore } from './memory-store.js';

/** The embedded store (one process, no durability): the default, so `npm start` needs only Node.js. */
export function openMemoryStore(schema: Schema): Store {
  return new MemoryStore(schema);
}

export { MemoryStore };
