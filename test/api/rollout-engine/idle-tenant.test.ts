/**
 * An idle tenant costs (almost) no Redis commands (issue 25): the background runners look at a tenant
 * through the store's cached view, which another instance's writes invalidate, and the effects dispatcher
 * reads a quiet tenant's stream only every few seconds (scheduler/runner.ts, store/redis/effects-queue.ts).
 * Counted on a private Redis, so that no other test's commands are in the count; and a rollout created and
 * started through another instance, which wakes nothing in this one, is still taken through at once.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startAppOn } from '../../helpers/app.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { createRollout, op, seedFleet, startRolloutApp, uid, waitStatus } from '../rollouts/fixture.js';

/** Commands Redis ran, by name, from INFO commandstats (those a script calls included). */
async function commandStats(client: ReturnType<typeof createClient>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await client.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1] ?? '', Number(m[2]));
  return out;
}

describe('an idle tenant', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('costs under one Redis command a second with the default intervals (rollout engine every 200 ms, effects every 250 ms)', async () => {
    const app = await startAppOn({ redisUrl: redis.url }, 'IDLE');
    // a tenant with targets and a distribution set, nothing assigned
    await seedFleet(app, uid('idle'), 3);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      await new Promise((r) => setTimeout(r, 3000)); // deliberately past the first passes of every task started with the server
      const before = await commandStats(admin);
      const seconds = 6;
      await new Promise((r) => setTimeout(r, seconds * 1000)); // deliberately long: the quiet effects look is every 5 s
      const after = await commandStats(admin);
      const ran = [...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const).filter(([name, n]) => n > 0 && name !== 'info');
      const total = ran.reduce((sum, [, n]) => sum + n, 0);
      // before the idle looks: about 30 a second (the engine's journal look, the dispatcher's reads, leases)
      expect(total / seconds, `commands over ${seconds} s: ${JSON.stringify(Object.fromEntries(ran))}`).toBeLessThan(1);
    } finally {
      await admin.quit();
    }
  });
});

describe.each(STORES.filter((k) => k !== 'memory'))('%s: work another instance commits', (kind) => {
  it('a rollout created and started through an instance without a scheduler is taken through by the one with it', async () => {
    const engine = await startRolloutApp(kind);
    const api = await startRolloutApp(kind, { sameAs: { tenant: engine.tenant }, manualEngine: true });
    const prefix = uid('other');
    const ds = await seedFleet(api, prefix, 4);
    await new Promise((r) => setTimeout(r, 300)); // deliberately past the engine's first full pass: from here on it trusts its idle look
    const r = await createRollout(api, {
      name: prefix, distributionSetId: ds, targetFilterQuery: `controllerid==${prefix}-*`, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    // the safety sweep comes only after 5 minutes: within the wait's 15 s, only the look at the cached indexes finds it
    await waitStatus(api, r.id, 'ready');
    await op(api, r.id, 'start');
    await waitStatus(api, r.id, 'running');
  });
});
