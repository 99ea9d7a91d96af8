import { describe, expect, it, vi } from 'vitest';
import { TARGET } from '../../src/domain/target.js';
import { tenantTag } from '../../src/store/redis/keys.js';
import { startAppOn, type App } from '../helpers/app.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { seedDistributionSet } from '../helpers/seed.js';
import { ADMIN_HASH } from '../helpers/server.js';

const TENANT = 'FAILOVER';
const GATEWAY = { authorization: 'GatewayToken gw-failover-0123456789' };
const DEVICES = 6;
/** Feedback per device at most: well below the quota of 1000 status entries per action. */
const MAX_REPORTS = 400;

const ADMIN_USER = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeout: number): Promise<void> {
  await vi.waitFor(() => expect(check(), `waiting for ${what}`).toBe(true), { timeout, interval: 50 });
}

/** Devices that report `proceeding` feedback in a loop and note what the server acknowledged. */
function reporters(app: App, actions: ReadonlyMap<string, number>) {
  const acked = new Map<string, string[]>([...actions.keys()].map((cid) => [cid, []]));
  const tally = { ok: 0, unavailable: 0, okAfterOutage: 0, other: [] as string[] };
  let stopped = false;
  const loops = [...actions].map(async ([cid, id]) => {
    for (let n = 0; n < MAX_REPORTS && !stopped; n++) {
      const message = `${cid} report ${n}`;
      const res = await app.anon.post(`${app.ddi}/${cid}/deploymentBase/${id}/feedback`, {
        headers: GATEWAY,
        json: { status: { execution: 'proceeding', result: { finished: 'none' }, details: [message] } },
      });
      if (res.status === 200) {
        acked.get(cid)!.push(message);
        tally.ok++;
        if (tally.unavailable > 0) tally.okAfterOutage++;
      } else if (res.status === 503) {
        expect(res.json().errorCode).toBe('peregrine.server.error.storeUnavailable');
        tally.unavailable++;
      } else {
        tally.other.push(`${res.status} ${res.text}`);
      }
      await sleep(20); // deliberately paced: a device's report interval
    }
  });
  return { acked, tally, stop: async () => { stopped = true; await Promise.all(loops); } };
}

describe('the server on a Redis Cluster when a master fails', () => {
  it('answers 503 during the election, recovers by itself, loses no acknowledged feedback, keeps caches coherent', async () => {
    // one replica per master; a master unreachable for 1 s is replaced by its replica
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1000 });
    let devices: ReturnType<typeof reporters> | undefined;
    try {
      const app = await startAppOn({ redisCluster: cluster.urls }, TENANT, {
        store: { redisWaitReplicas: 1 }, // acknowledged = on the master and its replica
        tenants: [{
          name: TENANT,
          users: [ADMIN_USER],
          config: { 'authentication.gatewaytoken.enabled': true, 'authentication.gatewaytoken.key': 'gw-failover-0123456789' },
        }],
      });
      const { ds } = await seedDistributionSet(app);
      const actions = new Map<string, number>();
      for (let i = 0; i < DEVICES; i++) {
        const cid = `failover-${i}`;
        expect((await app.anon.get(`${app.ddi}/${cid}`, { headers: GATEWAY })).status).toBe(200); // registers
        const res = await app.mgmt.post(`/rest/v1/targets/${cid}/assignedDS`, { json: { id: ds.id } });
        expect(res.status).toBe(200);
        actions.set(cid, res.json().assignedActions[0].id);
      }

      const running = (devices = reporters(app, actions));
      await until('feedback before the failure', () => running.tally.ok >= 30, 20_000);
      const victim = await cluster.masterOf(`${tenantTag(TENANT)}:any`); // the master of the tenant's slot
      await victim.kill();
      await until('503 while the replica is elected', () => running.tally.unavailable > 0, 20_000);
      await cluster.settled(30_000); // the replica serves the slot now
      await until('feedback acknowledged again', () => running.tally.okAfterOutage >= 5 * DEVICES, 30_000);
      await running.stop();
      if (process.env['PEREGRINE_TEST_LOG'] !== undefined) console.log('failover tally', running.tally);

      expect(running.tally.other).toEqual([]); // every answer was 200 or 503
      expect((await app.anon.get('/ready')).status).toBe(200);
      for (const [cid, id] of actions) {
        const res = await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}/status?limit=500`);
        expect(res.status).toBe(200);
        const stored = new Set(res.json<{ content: { messages: string[] }[] }>().content.flatMap((s) => s.messages));
        const lost = running.acked.get(cid)!.filter((m) => !stored.has(m));
        expect(lost, `acknowledged feedback of ${cid} missing after the failover`).toEqual([]);
      }
      // the promoted master tracks what the poll path caches: another instance's write reaches this one's cache
      const second = await startAppOn({ redisCluster: cluster.urls }, TENANT, { tenants: [{ name: TENANT, users: [ADMIN_USER] }] });
      const id = (await app.store.lookup(TENANT, TARGET, 'controllerId', 'failover-0'))!;
      const before = (await app.store.cached.get(TENANT, TARGET, id))!.version;
      expect((await second.mgmt.put('/rest/v1/targets/failover-0', { json: { description: 'after the failover' } })).status).toBe(200);
      await expect.poll(async () => (await app.store.cached.get(TENANT, TARGET, id))?.version, { timeout: 5000 }).toBeGreaterThan(before);

      // and the devices finish their updates on the new master
      for (const [cid, id] of actions) {
        const done = await app.anon.post(`${app.ddi}/${cid}/deploymentBase/${id}/feedback`, {
          headers: GATEWAY, json: { status: { execution: 'closed', result: { finished: 'success' } } },
        });
        expect(done.status).toBe(200);
        expect((await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}`)).json().status).toBe('finished');
      }
    } finally {
      await devices?.stop();
      await cluster.stop();
    }
  }, 120_000);
});
