/**
 * Reading rollouts, their groups and the targets of a group: FIQL, sort, paging, representations,
 * links and permissions.
 * @see reference/hawkbit-api.md 3.0 (list conventions), 3.7 (reads, JSON, links), 5 (Rollout / RolloutGroup fields); spec 2.9, 4.6
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  ERR, READER, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getGroups, op, readyRollout, startRolloutApp, uid,
  waitGroups, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

describe.each(LOCAL_STORES)('rollout reads on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  let otherDs: number;
  const tag = uid('reads');
  const rollouts: Json[] = [];
  let prefix: string;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
    otherDs = (await createSet(app)).id;
    prefix = uid();
    await createTargets(app, prefix, 6);
    for (const [i, set] of [[1, ds], [2, ds], [3, otherDs]] as const) {
      rollouts.push(await readyRollout(app, {
        name: `${tag}-${i}`, description: i === 2 ? 'the second' : undefined, targetFilterQuery: fleet(prefix), distributionSetId: set,
        amountGroups: 3,
      }));
    }
    await op(app, rollouts[2].id, 'start');
    await waitStatus(app, rollouts[2].id, 'running');
  });
  const list = async (query: string, auth?: readonly [string, string]): Promise<Json> => {
    const res = await app.mgmt.get(`${ROLLOUTS}?${query}`, auth ? { auth } : {});
    expect(res.status, res.text).toBe(200);
    return res.json();
  };
  const q = (fiql: string): string => `q=${encodeURIComponent(fiql)}`;
  const names = (page: Json): string[] => page.content.map((r: Json) => r.name);

  it('lists with FIQL on name, status, description, distributionset; sort and paging; total and size', async () => {
    expect(names(await list(`${q(`name==${tag}-*`)}&sort=name:ASC`))).toEqual([`${tag}-1`, `${tag}-2`, `${tag}-3`]);
    expect(names(await list(`${q(`name==${tag}-*`)}&sort=name:DESC`))).toEqual([`${tag}-3`, `${tag}-2`, `${tag}-1`]);
    expect(names(await list(`${q(`name==${tag}-*;status==running`)}`))).toEqual([`${tag}-3`]);
    expect(names(await list(`${q(`name==${tag}-*;status==ready`)}&sort=id:ASC`))).toEqual([`${tag}-1`, `${tag}-2`]);
    expect(names(await list(`${q(`name==${tag}-*;distributionset.id==${otherDs}`)}`))).toEqual([`${tag}-3`]);
    expect(names(await list(q(`description=='the second';name==${tag}-*`)))).toEqual([`${tag}-2`]);
    // id order is creation order
    expect(names(await list(`${q(`name==${tag}-*`)}&sort=id:ASC`))).toEqual([`${tag}-1`, `${tag}-2`, `${tag}-3`]);
    const page = await list(`${q(`name==${tag}-*`)}&sort=name:ASC&offset=1&limit=1`);
    expect(page).toMatchObject({ total: 3, size: 1 });
    expect(names(page)).toEqual([`${tag}-2`]);
  });

  it('compact list entries carry the base fields and a self link; full adds counts and totalGroups', async () => {
    const compact = (await list(q(`name==${tag}-1`))).content[0];
    expect(compact).toMatchObject({
      id: rollouts[0].id, name: `${tag}-1`, targetFilterQuery: fleet(prefix), distributionSetId: ds, status: 'ready', totalTargets: 6,
      type: 'forced', deleted: false, weight: 1000, createdBy: 'admin', createdAt: expect.any(Number),
    });
    expect(compact).not.toHaveProperty('totalTargetsPerStatus');
    expect(compact._links.self.href).toBe(`${app.url}${ROLLOUTS}/${rollouts[0].id}`);
    const full = (await list(`${q(`name==${tag}-3`)}&representation=full`)).content[0];
    expect(full).toMatchObject({ totalGroups: 3, totalTargetsPerStatus: counts({ running: 2, scheduled: 4 }) });
    expect(full._links.self.href).toBe(`${app.url}${ROLLOUTS}/${rollouts[2].id}`);
  });

  it('one rollout is always full, with the operation, groups and distribution set links', async () => {
    const res = await app.mgmt.get(`${ROLLOUTS}/${rollouts[1].id}`);
    expect(res.status).toBe(200);
    const r = res.json();
    expect(r).toMatchObject({
      id: rollouts[1].id, name: `${tag}-2`, description: 'the second', status: 'ready', totalGroups: 3, totalTargets: 6,
      totalTargetsPerStatus: counts({ notstarted: 6 }),
    });
    const base = `${app.url}${ROLLOUTS}/${rollouts[1].id}`;
    expect(r._links.self.href).toBe(base);
    for (const link of ['start', 'pause', 'resume', 'triggerNextGroup', 'approve', 'deny']) {
      expect(r._links[link]?.href, link).toContain(`${base}/${link}`);
    }
    expect(r._links.groups.href).toContain(`${base}/deploygroups`);
    // named `name:version`, as hawkBit's MgmtRolloutMapper names the link
    const set = (await app.mgmt.get(`/rest/v1/distributionsets/${ds}`)).json();
    expect(r._links.distributionset).toEqual({ href: `${app.url}/rest/v1/distributionsets/${ds}`, name: `${set.name}:${set.version}` });
    expectError(await app.mgmt.get(`${ROLLOUTS}/987654321`), 404, ERR.notFound);
  });

  it('groups: compact and full lists, FIQL on name, sort, paging; one group is full; a group of another rollout is 404', async () => {
    const id = rollouts[2].id;
    const res = await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups`);
    expect(res.status, res.text).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 3, size: 3 });
    expect(page.content.map((g: Json) => g.name)).toEqual(['group-1', 'group-2', 'group-3']);
    expect(page.content[0]).not.toHaveProperty('totalTargetsPerStatus');
    expect(page.content[0]).toMatchObject({ status: 'running', totalTargets: 2 });
    const full = await getGroups(app, id);
    expect(full.map((g) => g.totalTargetsPerStatus)).toEqual([counts({ running: 2 }), counts({ scheduled: 2 }), counts({ scheduled: 2 })]);
    const byName = (await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups?${q('name==group-2')}`)).json();
    expect(byName.content.map((g: Json) => g.id)).toEqual([full[1].id]);
    const sorted = (await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups?sort=name:DESC&offset=1&limit=1`)).json();
    expect(sorted).toMatchObject({ total: 3, size: 1 });
    expect(sorted.content[0].name).toBe('group-2');

    const one = await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups/${full[0].id}`);
    expect(one.status).toBe(200);
    expect(one.json()).toMatchObject({
      id: full[0].id, name: 'group-1', status: 'running', totalTargets: 2, totalTargetsPerStatus: counts({ running: 2 }),
    });
    expect(one.json()._links.self.href).toBe(`${app.url}${ROLLOUTS}/${id}/deploygroups/${full[0].id}`);
    expectError(await app.mgmt.get(`${ROLLOUTS}/${rollouts[0].id}/deploygroups/${full[0].id}`), 404, ERR.notFound);
    expectError(await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups/987654321`), 404, ERR.notFound);
  });

  it('targets of a group: FIQL, sort, paging', async () => {
    const id = rollouts[0].id;
    const groups = await waitGroups(app, id, ['ready', 'ready', 'ready']);
    const path = `${ROLLOUTS}/${id}/deploygroups/${groups[0].id}/targets`;
    const all = (await app.mgmt.get(`${path}?sort=controllerId:ASC`)).json();
    expect(all).toMatchObject({ total: 2, size: 2 });
    const ids: string[] = all.content.map((t: Json) => t.controllerId);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((c) => c.startsWith(`${prefix}-`))).toBe(true);
    const desc = (await app.mgmt.get(`${path}?sort=controllerId:DESC`)).json();
    expect(desc.content.map((t: Json) => t.controllerId)).toEqual([...ids].reverse());
    const filtered = (await app.mgmt.get(`${path}?${q(`controllerId==${ids[1]}`)}`)).json();
    expect(filtered.content.map((t: Json) => t.controllerId)).toEqual([ids[1]]);
    const paged = (await app.mgmt.get(`${path}?sort=controllerId:ASC&offset=1&limit=1`)).json();
    expect(paged).toMatchObject({ total: 2, size: 1 });
    expect(paged.content[0].controllerId).toBe(ids[1]);
    expect(paged.content[0]._links.self.href).toBe(`${app.url}/rest/v1/targets/${ids[1]}`);
  });

  it('bad FIQL and bad sort on the lists answer 400 with the list error codes', async () => {
    const id = rollouts[0].id;
    for (const path of [ROLLOUTS, `${ROLLOUTS}/${id}/deploygroups`]) {
      expectError(await app.mgmt.get(`${path}?${q('name==')}`), 400, ERR.rsqlSyntax);
      expectError(await app.mgmt.get(`${path}?${q('nosuchfield==1')}`), 400, ERR.rsqlField);
      expectError(await app.mgmt.get(`${path}?sort=nosuchfield:ASC`), 400, ERR.sortField);
      expectError(await app.mgmt.get(`${path}?sort=name:SIDEWAYS`), 400, ERR.sortDirection);
    }
    const groups = await getGroups(app, id);
    expectError(await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups/${groups[0].id}/targets?${q('nosuchfield==1')}`), 400, ERR.rsqlField);
  });

  it('a reader (READ_ROLLOUT, READ_TARGET) reads everything but may not create or start; anonymous is 401', async () => {
    expect((await list(q(`name==${tag}-*`), READER)).total).toBe(3);
    const groups = await getGroups(app, rollouts[0].id);
    expect((await app.mgmt.get(`${ROLLOUTS}/${rollouts[0].id}/deploygroups/${groups[0].id}/targets`, { auth: READER })).status).toBe(200);
    const body = { name: uid('denied'), targetFilterQuery: fleet(prefix), distributionSetId: ds };
    expectError(await app.mgmt.post(ROLLOUTS, { json: body, auth: READER }), 403, ERR.permission);
    expectError(await app.mgmt.post(`${ROLLOUTS}/${rollouts[0].id}/start`, { auth: READER }), 403, ERR.permission);
    expect((await app.anon.get(ROLLOUTS)).status).toBe(401);
    expect((await list(q(`name==${tag}-*`))).total).toBe(3); // nothing was created by the refused request
  });
});
