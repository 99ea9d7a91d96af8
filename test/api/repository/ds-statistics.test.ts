import { beforeAll, describe, expect, it } from 'vitest';
import { createRollout, waitStatus } from '../rollouts/fixture.js';
import { STORES, startAppOn, storeOptions, tenantFor, type App } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { ERR, expectError } from '../targets/fixtures.js';

/**
 * A distribution set's statistics and the target filters that auto-assign it (issue 7 item 12),
 * in hawkBit's JSON (MgmtDistributionSetStatistics, reference §3.9); rollouts are made over the
 * rollout API.
 */
describe.each(STORES)('distribution set statistics, %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startAppOn(storeOptions(kind), tenantFor(kind, 'S'), { scheduler: { rolloutMs: 50 } });
  });

  /**
   * A rollout of `ds` over one target of its own (a filter matching none is refused), waited to `ready`;
   * started when asked and brought to `finished` by force-quitting its one action (a canceled action closes the group).
   */
  const rollout = async (name: string, ds: number, start: boolean): Promise<void> => {
    const cid = `ro-${name}`;
    await seedTarget(app, cid);
    const created = await createRollout(app, { name, distributionSetId: ds, targetFilterQuery: `name==${cid}`, amountGroups: 1 });
    await waitStatus(app, created.id, 'ready');
    if (!start) return;
    expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`)).status).toBe(204);
    await waitStatus(app, created.id, 'running');
    const [action] = (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json().content;
    for (const force of ['', '?force=true']) {
      const res = await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${action.id}${force}`);
      expect(res.status, res.text).toBe(204);
    }
    await waitStatus(app, created.id, 'finished');
  };

  it('counts actions by status, rollouts by status and auto-assignments, with totals', async () => {
    const { ds } = await seedDistributionSet(app);
    const { ds: elsewhere } = await seedDistributionSet(app);
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      const t = await seedTarget(app, `stat-${n}`);
      const res = await app.mgmt.post(`/rest/v1/targets/${t.controllerId}/assignedDS`, { json: { id: ds.id } });
      expect(res.status, res.text).toBe(200);
      ids.push(res.json().assignedActions[0].id);
    }
    await app.mgmt.post('/rest/v1/targets/stat-1/assignedDS', { json: { id: elsewhere.id } }); // another set's action; cancels stat-1's
    expect((await app.mgmt.get(`/rest/v1/actions/${ids[0]}`)).json().detailStatus).toBe('canceling');
    for (const [name, set] of [['f1', ds.id], ['f2', ds.id], ['f3', elsewhere.id]] as const) {
      const f = (await app.mgmt.post('/rest/v1/targetfilters', { json: { name, query: 'name==stat-*' } })).json();
      expect((await app.mgmt.post(`/rest/v1/targetfilters/${f.id}/autoAssignDS`, { json: { id: set } })).status).toBe(200);
    }
    await rollout(`r1-${kind}`, ds.id, true);
    await rollout(`r2-${kind}`, ds.id, false);
    await rollout(`r3-${kind}`, elsewhere.id, false);

    const base = `/rest/v1/distributionsets/${ds.id}/statistics`;
    const full = await app.mgmt.get(base);
    expect(full.status, full.text).toBe(200);
    expect(full.json()).toEqual({
      actions: { RUNNING: 2, CANCELING: 1, CANCELED: 1, total: 4 },
      rollouts: { READY: 1, FINISHED: 1, total: 2 },
      totalAutoAssignments: 2,
    });
    expect((await app.mgmt.get(`${base}/actions`)).json()).toEqual({ actions: { RUNNING: 2, CANCELING: 1, CANCELED: 1, total: 4 } });
    expect((await app.mgmt.get(`${base}/rollouts`)).json()).toEqual({ rollouts: { READY: 1, FINISHED: 1, total: 2 } });
    expect((await app.mgmt.get(`${base}/autoassignments`)).json()).toEqual({ totalAutoAssignments: 2 });
  });

  it('answers a set with nothing as hawkBit does: full with zero totals, parts empty', async () => {
    const { ds } = await seedDistributionSet(app);
    const base = `/rest/v1/distributionsets/${ds.id}/statistics`;
    expect((await app.mgmt.get(base)).json()).toEqual({ actions: { total: 0 }, rollouts: { total: 0 }, totalAutoAssignments: 0 });
    for (const part of ['actions', 'rollouts', 'autoassignments']) expect((await app.mgmt.get(`${base}/${part}`)).json()).toEqual({});
  });

  it.each(['statistics', 'statistics/actions', 'statistics/rollouts', 'statistics/autoassignments', 'autoAssignTargetFilters'])(
    'answers 404 for an unknown set on %s', async (part) => {
      expectError(await app.mgmt.get(`/rest/v1/distributionsets/999999/${part}`), 404, ERR.notFound, '999999');
    },
  );

  it('lists the target filters auto-assigning a set, paged and filtered', async () => {
    const { ds } = await seedDistributionSet(app);
    const { ds: elsewhere } = await seedDistributionSet(app);
    const made: number[] = [];
    for (const [name, set] of [['aa-1', ds.id], ['aa-2', ds.id], ['aa-3', elsewhere.id], ['aa-4', null]] as const) {
      const f = (await app.mgmt.post('/rest/v1/targetfilters', { json: { name, query: 'name==x' } })).json();
      made.push(f.id);
      if (set !== null) await app.mgmt.post(`/rest/v1/targetfilters/${f.id}/autoAssignDS`, { json: { id: set, type: 'soft', weight: 5 } });
    }
    const path = `/rest/v1/distributionsets/${ds.id}/autoAssignTargetFilters`;
    const res = await app.mgmt.get(path);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, size: 2 });
    expect(res.json().content[0]).toEqual({
      id: made[0], name: 'aa-1', query: 'name==x', autoAssignDistributionSet: ds.id, autoAssignActionType: 'soft', autoAssignWeight: 5,
      confirmationRequired: false, createdBy: 'admin', createdAt: expect.any(Number), lastModifiedBy: 'admin', lastModifiedAt: expect.any(Number),
      _links: { self: { href: `${app.url}/rest/v1/targetfilters/${made[0]}` } },
    });
    expect((await app.mgmt.get(`${path}?q=name==aa-2`)).json().content.map((f: { id: number }) => f.id)).toEqual([made[1]]);
    expect((await app.mgmt.get(`${path}?limit=1&offset=1&sort=name:DESC`)).json()).toMatchObject({ total: 2, size: 1, content: [{ id: made[0] }] });
    expectError(await app.mgmt.get(`${path}?q=bogus==1`), 400, ERR.rsqlField);
  });
});
