import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { cachedCases } from './cases/cached.js';
import { coordinationCases } from './cases/coordination.js';
import { dropTenantCases } from './cases/drop-tenant.js';
import { counterCases } from './cases/counters.js';
import { effectCases } from './cases/effects.js';
import { indexCases } from './cases/indexes.js';
import { journalCases } from './cases/journal.js';
import { largeCommitCases } from './cases/large.js';
import { pollCases } from './cases/polls.js';
import { recordCases } from './cases/records.js';
import { useStore } from './contract-schema.js';

export { CONTRACT_SCHEMA } from './contract-schema.js';

/**
 * The Store contract (src/store/port.ts): the same cases run unchanged against every adapter.
 * `open` returns a store built with CONTRACT_SCHEMA; every test gets a fresh store and its own tenant.
 * `name` labels the run; `kind` is the adapter's (a Redis Cluster is the redis adapter too).
 */
export function storeContract(name: string, open: () => Promise<Store>, kind: Store['kind'] = name as Store['kind']): void {
  describe(`${name} store`, () => {
    const ctx = useStore(open);

    it('answers ping', async () => {
      await expect(ctx().store.ping()).resolves.toBeUndefined();
      expect(ctx().store.kind).toBe(kind);
    });

    recordCases(ctx);
    indexCases(ctx);
    coordinationCases(ctx);
    counterCases(ctx);
    effectCases(ctx);
    pollCases(ctx);
    journalCases(ctx);
    largeCommitCases(ctx);
    cachedCases(ctx);
    dropTenantCases(ctx);
  });
}
