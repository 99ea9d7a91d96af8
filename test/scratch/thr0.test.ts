import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRollout, seedFleet, startRolloutApp, statusOf, until, getRollout, groupsOf, type RolloutApp } from '../api/rollout-engine/fixture.js';
import { seedDistributionSet } from '../helpers/seed.js';

describe.each(['memory', 'redis', 'cluster'] as const)('threshold 0 on %s', (kind) => {
  let app: RolloutApp;
  beforeAll(async () => { app = await startRolloutApp(kind); });
  afterAll(async () => { await app?.server.close(); });
  it('starts every action', async () => {
    const first = await seedFleet(app, 'z-', 300);
    const ids = Array.from({ length: 300 }, (_, i) => ({ id: `z--${i + 1}`, type: 'soft' }));
    expect((await app.mgmt.post(`/rest/v1/distributionsets/${first}/assignedTargets`, { json: ids })).status).toBe(200);
    for (const t of ids) expect(await app.report(t.id, 'success')).toBe(true);
    for (let k = 0; k < 2; k++) for (const t of ids) expect(await app.offered(t.id)).toBeUndefined();
    const { ds } = await seedDistributionSet(app);
    const r = await createRollout(app, { name: 'z', distributionSetId: ds.id, targetFilterQuery: 'controllerid==z-*', amountGroups: 10,
      successCondition: { condition: 'THRESHOLD', expression: '0' } });
    await statusOf(app, r.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/start`)).status).toBe(204);
    await until('all groups started', async () => groupsOf(app, r.id), (gs) => gs.every((g) => g.status !== 'scheduled'));
    await new Promise((res) => setTimeout(res, 1000));
    const full = await getRollout(app, r.id);
    const acts = (await app.mgmt.get(`/rest/v1/actions?limit=500&q=${encodeURIComponent('rollout.id==' + r.id)}`)).json();
    const sched = (await app.mgmt.get(`/rest/v1/actions?limit=500`)).json().content.filter((a: any) => a.detailStatus === 'scheduled');
    console.log(JSON.stringify(full.totalTargetsPerStatus), acts.total, sched.length, JSON.stringify((await groupsOf(app, r.id)).map((g) => [g.status, g.totalTargetsPerStatus])));
    expect(sched.length).toBe(0);
    const stale: string[] = [];
    for (const t of ids) if ((await app.offered(t.id)) === undefined) stale.push(t.id);
    expect(stale).toEqual([]);
  });
});
