import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../src/domain/action.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { uniqueTenant } from '../helpers/redis.js';
import { openInstance, seedAssigned, type Instance } from './runtime-fixture.js';

const CHILD = fileURLToPath(new URL('../fixtures/crash-child.mjs', import.meta.url));

/**
 * A process killed between committing an action's transition and dispatching its effect: the effect
 * is in the durable queue, and a surviving instance delivers it to the target exactly once. The
 * action is closed (canceled): that end reaches its target through the queue (its handler reads the
 * target's other actions), unlike a device's final feedback, whose target change commits with it.
 */
describe('actor runtime: a crash between commit and dispatch', () => {
  const open: Instance[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((i) => i.close())); });

  it.each(['after-commit', 'after-read'])('%s: the target still becomes in sync, once', async (mode) => {
    const tenant = uniqueTenant('crash');
    const url = inject('redisUrl');
    const seed = await openInstance('redis', url, tenant, 'seed');
    open.push(seed);
    await seedAssigned(seed.runtime, tenant);

    const child = spawnSync(process.execPath, [CHILD, url, tenant, mode], { encoding: 'utf8', timeout: 15_000 });
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toContain('committed');
    if (mode === 'after-read') expect(child.stdout).toContain('taken 1');

    // the action committed, the target did not hear of it yet: the effect waits in the queue
    expect((await seed.store.get<ActionRecord>(tenant, ACTION, 10))?.value.status).toBe('canceled');
    expect((await seed.store.get<TargetRecord>(tenant, TARGET, 1))?.value.updateStatus).toBe('pending');
    expect(await seed.store.pendingEffects(tenant)).toBe(1);

    // a surviving instance reclaims it (after the idle time when the dead consumer had taken it)
    const survivor = await openInstance('redis', url, tenant, 'survivor', 200);
    open.push(survivor);
    await expect.poll(async () => {
      await survivor.dispatcher.drain();
      return survivor.store.pendingEffects(tenant);
    }, { timeout: 5000, interval: 100 }).toBe(0);

    const target = await survivor.store.get<TargetRecord>(tenant, TARGET, 1);
    // no active action left: in sync with what it has installed (nothing)
    expect(target?.value).toMatchObject({ updateStatus: 'in_sync', assignedDs: null, installedDs: null });
    expect(target?.version).toBe(2);

    // delivering the same effect again (a second survivor, a late redelivery) is refused by its id
    const effectId = /committed (\S+)/.exec(child.stdout)?.[1] ?? '';
    expect(effectId).not.toBe('');
    const again = await survivor.runtime.send(tenant, TARGET, 1, { type: 'action.canceled', nextDs: 7, at: 60 }, { dedupe: effectId });
    expect(again.kind).toBe('duplicate');
    expect((await survivor.store.get<TargetRecord>(tenant, TARGET, 1))?.version).toBe(2);
    expect(await survivor.store.count(tenant, ACTION_STATUS, 'action', '10')).toBe(1);
  });
});
