/**
 * The idle looks (scheduler/runner.ts `Task.idle`): the rollout engine's says a tenant with no rollout in a
 * status it works on is idle, from the store's cached view, without a lease or a read of the store itself;
 * the task runner skips the pass (and its lease) of a tenant its task says is idle, except the tenant's
 * first pass and one every SWEEP_MS (the safety sweep).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import type { ActorComposer } from '../../../src/actors/roles.js';
import { ROLLOUT, type RolloutRecord } from '../../../src/domain/rollout.js';
import { RolloutEngine } from '../../../src/scheduler/rollouts.js';
import { leaseName, SWEEP_MS, TaskRunner, type Task } from '../../../src/scheduler/runner.js';
import { openStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/port.js';
import type { TenantConfigService } from '../../../src/tenancy/tenant-config-service.js';

let store: Store;
afterEach(async () => {
  await store?.close();
});

/** The store, counting the index reads that do not go through its cached view. */
function counted(inner: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'members') return (...args: Parameters<Store['members']>) => { reads++; return target.members(...args); };
      if (prop === 'cached') return target.cached; // the memory store is its own cache: its reads through `cached` are not counted
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store, reads: () => reads };
}

const unused = new Proxy({}, { get: () => { throw new Error('an idle tenant needs no runtime or tenant configuration'); } });

describe('scheduler: idle tenants', () => {
  it('the rollout engine calls a tenant idle while no rollout is in a status it works on, reading only the cached view', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const { store: watched, reads } = counted(store);
    const engine = new RolloutEngine({
      store: watched, runtime: unused as ActorComposer, tenantConfig: unused as Pick<TenantConfigService, 'view'>,
      log: { warn: () => {} }, quotas: { maxRolloutGroupsPerRollout: 500, maxActionsPerTarget: 100 },
    });
    expect(await engine.idle('T')).toBe(true);
    // a paused or finished rollout gives the engine nothing to do
    // the fields the rollout's indexes read (domain/rollout.ts): enough for this look
    const paused = { id: 1, name: 'r', ds: 7, deleted: false, status: 'paused' } as unknown as RolloutRecord;
    await store.commit('T', { writes: [{ kind: ROLLOUT, id: 1, expect: 0, before: null, after: paused }] });
    expect(await engine.idle('T')).toBe(true);
    expect(reads()).toBe(0);
    // resumed: running, in the engine's work
    await store.commit('T', { writes: [{ kind: ROLLOUT, id: 1, expect: 1, before: paused, after: { ...paused, status: 'running' } }] });
    expect(await engine.idle('T')).toBe(false);
    expect(await engine.idle('OTHER')).toBe(true); // per tenant
    expect(reads()).toBe(0);
  });

  it('the runner neither takes the lease nor runs the pass of an idle tenant, but for its first pass and a sweep every SWEEP_MS', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const runs: string[] = [];
    const looked: string[] = [];
    const task: Task = {
      name: 'job', intervalMs: 60_000, leased: true,
      run: async (tenant) => { runs.push(tenant); return 1; },
      idle: async (tenant) => { looked.push(tenant); return tenant === 'QUIET'; },
    };
    const runner = new TaskRunner({ store, tenants: { list: () => ['QUIET', 'BUSY'] }, owner: 'a', log: { error: () => {} } });
    // the first pass runs every tenant in full, whatever its look would say
    expect(await runner.runNow(task, 0)).toEqual({ counts: { QUIET: 1, BUSY: 1 }, skipped: [] });
    expect(looked).toEqual([]);
    await runner.stop([task]); // releases the leases taken
    expect(await runner.runNow(task, 1000)).toEqual({ counts: { QUIET: 0, BUSY: 1 }, skipped: [] });
    expect(runs).toEqual(['QUIET', 'BUSY', 'BUSY']);
    expect(await store.acquireLease(leaseName(task, 'QUIET'), 'b', 1000)).toBe(true); // nobody held it
    expect(await store.acquireLease(leaseName(task, 'BUSY'), 'b', 1000)).toBe(false);
    await store.releaseLease(leaseName(task, 'QUIET'), 'b');
    expect((await runner.runNow(task, SWEEP_MS - 1)).counts['QUIET']).toBe(0);
    // SWEEP_MS after its last full pass, the idle tenant gets one again: a missed wake-up waits no longer
    expect((await runner.runNow(task, SWEEP_MS)).counts['QUIET']).toBe(1);
    expect((await runner.runNow(task, SWEEP_MS + 1)).counts['QUIET']).toBe(0);
    expect(runs.filter((t) => t === 'QUIET')).toHaveLength(2);
  });
});
