/**
 * The rollout engine's idle look (scheduler/rollouts.ts `idle`): a tenant whose last pass found no
 * rollout to work on is skipped, without a lease and without reading the status indexes, until its
 * journal moves or QUIET_RECHECK_MS passed; and the task runner skips a pass (and its lease) that its
 * task says is idle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import type { ActorComposer } from '../../../src/actors/roles.js';
import { RolloutEngine } from '../../../src/scheduler/rollouts.js';
import { leaseName, TaskRunner, type Task } from '../../../src/scheduler/runner.js';
import { openStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/port.js';
import type { TenantConfigService } from '../../../src/tenancy/tenant-config-service.js';

let store: Store;
afterEach(async () => {
  await store?.close();
});

/** The store, counting its index reads. */
function counted(inner: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'members') return (...args: Parameters<Store['members']>) => { reads++; return target.members(...args); };
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store, reads: () => reads };
}

const unused = new Proxy({}, { get: () => { throw new Error('a quiet tenant needs no runtime or tenant configuration'); } });

describe('rollout engine: idle tenants', () => {
  it('skips a tenant with no rollout to work on until its journal moves, or 5 s passed', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const { store: watched, reads } = counted(store);
    const engine = new RolloutEngine({
      store: watched, runtime: unused as ActorComposer, tenantConfig: unused as Pick<TenantConfigService, 'view'>,
      log: { warn: () => {} }, quotas: { maxRolloutGroupsPerRollout: 500, maxActionsPerTarget: 100 },
    });
    expect(await engine.idle('T', 1000)).toBe(false); // never looked at: a full pass first
    expect(await engine.run('T', 1000)).toBe(0);
    const afterPass = reads();
    expect(afterPass).toBeGreaterThan(0);
    expect(await engine.idle('T', 1200)).toBe(true);
    expect(await engine.idle('T', 5999)).toBe(true);
    expect(reads()).toBe(afterPass); // the idle look reads no index
    expect(await engine.idle('T', 6000)).toBe(false); // the periodic full look
    // a commit with a journal entry (a rollout created or changing status) ends the quiet at once
    await store.commit('T', { writes: [], journal: [{ type: 'rollout', rolloutId: 1, name: 'r', status: 'creating' }] });
    expect(await engine.idle('T', 1300)).toBe(false);
    expect(await engine.run('T', 1300)).toBe(0);
    expect(await engine.idle('T', 1400)).toBe(true);
    expect(await engine.idle('OTHER', 1400)).toBe(false); // per tenant
  });

  it('the runner neither takes the lease nor runs the pass of an idle tenant', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const runs: string[] = [];
    const task: Task = {
      name: 'job', intervalMs: 60_000, leased: true,
      run: async (tenant) => { runs.push(tenant); return 1; },
      idle: async (tenant) => tenant === 'QUIET',
    };
    const runner = new TaskRunner({ store, tenants: { list: () => ['QUIET', 'BUSY'] }, owner: 'a', log: { error: () => {} } });
    expect(await runner.runNow(task, 0)).toEqual({ counts: { QUIET: 0, BUSY: 1 }, skipped: [] });
    expect(runs).toEqual(['BUSY']);
    expect(await store.acquireLease(leaseName(task, 'QUIET'), 'b', 1000)).toBe(true); // nobody held it
    expect(await store.acquireLease(leaseName(task, 'BUSY'), 'b', 1000)).toBe(false);
  });
});
