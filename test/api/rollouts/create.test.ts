/**
 * Rollout creation in both forms, its defaults and spellings, and how groups are filled.
 * @see reference/hawkbit-api.md 3.7 (RolloutCreate, Rollout / RolloutGroup JSON), 4.6 (CREATING -> READY), 4.7 (groups, filling)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  ERR, ROLLOUTS, conditionsOf, counts, createRollout, createSet, createTargets, expectError, fleet, getGroups, getRollout, groupTargets, op,
  otherSetType, readyRollout, startRolloutApp, uid, waitFor, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

describe.each(LOCAL_STORES)('rollout creation on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });

  it('amountGroups: 201 in status creating, then ready with group-1..N of equal share and the defaults', async () => {
    const p = uid();
    await createTargets(app, p, 8);
    const name = uid('rollout');
    const created = await createRollout(app, {
      name, description: 'four groups', targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 4,
    });
    expect(created).toMatchObject({
      name, description: 'four groups', targetFilterQuery: fleet(p), distributionSetId: ds, status: 'creating',
      type: 'forced', weight: 1000, deleted: false, totalTargets: 8, createdBy: 'admin',
    });
    expect(created.id).toEqual(expect.any(Number));
    expect(created._links.self.href).toBe(`${app.url}${ROLLOUTS}/${created.id}`);

    const ready = await waitStatus(app, created.id, 'ready');
    expect(ready).toMatchObject({ totalTargets: 8, totalGroups: 4, totalTargetsPerStatus: counts({ notstarted: 8 }) });
    const groups = await getGroups(app, created.id);
    expect(groups.map((g) => g.name)).toEqual(['group-1', 'group-2', 'group-3', 'group-4']);
    expect(groups.map((g) => g.description)).toEqual(['group-1', 'group-2', 'group-3', 'group-4']);
    for (const g of groups) {
      expect(g).toMatchObject({ status: 'ready', totalTargets: 2, totalTargetsPerStatus: counts({ notstarted: 2 }) });
      expect(conditionsOf(g)).toEqual({ success: 'threshold:50', successAction: 'nextgroup', error: 'threshold:50', errorAction: 'pause' });
      expect(g.targetPercentage).toBeCloseTo(25, 3);
    }
    const members = await Promise.all(groups.map((g) => groupTargets(app, created.id, g.id)));
    expect(members.flat().sort()).toEqual(Array.from({ length: 8 }, (_, i) => `${p}-${i + 1}`).sort());
  });

  it('amountGroups defaults to one group holding every matching target', async () => {
    const p = uid();
    await createTargets(app, p, 3);
    const r = await readyRollout(app, { name: uid('one'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const groups = await getGroups(app, r.id);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ name: 'group-1', totalTargets: 3, targetPercentage: 100 });
  });

  it('explicit groups: own filters, percentages of what is left, own conditions, rollout conditions otherwise', async () => {
    const p = uid();
    await createTargets(app, p, 4, { description: 'eu' });
    const us = (await createTargets(app, `${p}-us`, 4, { description: 'us' })).sort();
    const r = await createRollout(app, {
      name: uid('explicit'), targetFilterQuery: fleet(p), distributionSetId: ds,
      successCondition: { condition: 'threshold', expression: '80' }, successAction: { action: 'nextgroup', expression: '' },
      errorCondition: { condition: 'THRESHOLD', expression: '20' }, errorAction: { action: 'PAUSE', expression: '' },
      groups: [
        {
          name: 'europe', description: 'EU first', targetFilterQuery: 'description==eu', targetPercentage: 50,
          successCondition: { condition: 'THRESHOLD', expression: '75' }, successAction: { action: 'NEXTGROUP', expression: '' },
          errorCondition: { condition: 'threshold', expression: '25' }, errorAction: { action: 'pause', expression: '' },
        },
        { name: 'europe-rest', targetFilterQuery: 'description==eu', targetPercentage: 100, successAction: { action: 'pause' } },
        { name: 'everyone-else', targetPercentage: 100 },
      ],
    });
    expect(r.totalTargets).toBe(8);
    await waitStatus(app, r.id, 'ready');
    const groups = await getGroups(app, r.id);
    expect(groups.map((g) => [g.name, g.totalTargets, g.targetPercentage])).toEqual([
      ['europe', 2, 50], ['europe-rest', 2, 100], ['everyone-else', 4, 100],
    ]);
    expect(groups[0]).toMatchObject({ description: 'EU first', targetFilterQuery: 'description==eu' });
    expect(conditionsOf(groups[0])).toEqual({
      success: 'threshold:75', successAction: 'nextgroup', error: 'threshold:25', errorAction: 'pause',
    });
    expect(conditionsOf(groups[2])).toEqual({
      success: 'threshold:80', successAction: 'nextgroup', error: 'threshold:20', errorAction: 'pause',
    });
    // the names as Jackson writes hawkBit's enums (MgmtRolloutCondition.Condition, ...), whatever case was sent
    const names = (g: Json): string[] =>
      [g.successCondition.condition, g.successAction.action, g.errorCondition.condition, g.errorAction.action];
    const single = (await app.mgmt.get(`${ROLLOUTS}/${r.id}/deploygroups/${groups[0].id}`)).json();
    for (const g of [groups[0], groups[2], single]) expect(names(g)).toEqual(['THRESHOLD', 'NEXTGROUP', 'THRESHOLD', 'PAUSE']);
    expect(names(groups[1])).toEqual(['THRESHOLD', 'PAUSE', 'THRESHOLD', 'PAUSE']);
    // no target twice in one rollout: the catch-all group holds exactly the targets the EU groups left
    expect((await groupTargets(app, r.id, groups[2].id)).sort()).toEqual(us);
    const eu = [...await groupTargets(app, r.id, groups[0].id), ...await groupTargets(app, r.id, groups[1].id)];
    expect(new Set(eu).size).toBe(4);
    expect(eu.every((c) => !us.includes(c))).toBe(true);
  });

  it('condition objects sent empty take THRESHOLD "100", NEXTGROUP and PAUSE', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const r = await readyRollout(app, {
      name: uid('empty-conditions'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 1,
      successCondition: {}, successAction: {}, errorCondition: {}, errorAction: {},
    });
    const [g] = await getGroups(app, r.id);
    expect(conditionsOf(g)).toEqual({ success: 'threshold:100', successAction: 'nextgroup', error: 'threshold:100', errorAction: 'pause' });
  });

  it.each([
    ['soft', {}, { forceType: 'soft' }],
    ['timeforced', { forcetime: 4_102_444_800_000 }, { forceType: 'timeforced', forceTime: 4_102_444_800_000 }],
    ['downloadonly', {}, { forceType: 'downloadonly' }],
    ['forced', {}, { forceType: 'forced' }],
  ])('type %s is kept on the rollout and on the actions it creates, with the weight', async (type, extra, action) => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const r = await readyRollout(app, { name: uid(type), targetFilterQuery: fleet(p), distributionSetId: ds, type, weight: 7, ...extra });
    expect(r).toMatchObject({ type, weight: 7, ...extra });
    await op(app, r.id, 'start');
    await waitStatus(app, r.id, 'running');
    const actions = (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json();
    expect(actions.total).toBe(1);
    expect(actions.content[0]).toMatchObject({ ...action, weight: 7, rollout: r.id, rolloutName: r.name });
  });

  // hawkBit's MgmtRolloutMapper copies `forcetime` into the rollout and writes it back whatever the type
  it('forcetime is echoed as given with any type (0 when not sent); only timeforced actions use it', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const forcetime = 4_102_444_800_000;
    const r = await readyRollout(app, { name: uid('forcetime'), targetFilterQuery: fleet(p), distributionSetId: ds, type: 'soft', forcetime });
    expect(r).toMatchObject({ type: 'soft', forcetime });
    expect((await createRollout(app, { name: uid('no-forcetime'), targetFilterQuery: fleet(p), distributionSetId: ds })).forcetime).toBe(0);
    await op(app, r.id, 'start');
    await waitStatus(app, r.id, 'running');
    const [action] = (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json().content;
    expect(action).toMatchObject({ forceType: 'soft', rollout: r.id });
    expect(action).not.toHaveProperty('forceTime');
  });

  it('startAt: a due rollout starts by itself once ready; a future one waits in ready and shows startAt', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const due = await createRollout(app, { name: uid('due'), targetFilterQuery: fleet(p), distributionSetId: ds, startAt: Date.now() });
    await waitStatus(app, due.id, 'running');
    const q = uid();
    await createTargets(app, q, 1);
    const later = Date.now() + 24 * 3600 * 1000;
    const future = await readyRollout(app, { name: uid('future'), targetFilterQuery: fleet(q), distributionSetId: ds, startAt: later });
    expect(future).toMatchObject({ status: 'ready', startAt: later });
  });

  it('fills groups only with targets created before the rollout and compatible with the set type', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const type = { name: uid('type'), compatibledistributionsettypes: [{ id: await otherSetType(app) }] };
    const typeRes = await app.mgmt.post('/rest/v1/targettypes', { json: [type] });
    expect(typeRes.status, typeRes.text).toBe(201);
    await createTargets(app, `${p}-typed`, 2, { targetType: typeRes.json()[0].id });
    const r = await createRollout(app, { name: uid('filling'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 1 });
    await waitFor(async () => Date.now(), (now) => now > (r.createdAt as number)); // a later millisecond than the rollout's
    await createTargets(app, `${p}-late`, 2);
    await waitStatus(app, r.id, 'ready');
    const [g] = await getGroups(app, r.id);
    expect((await groupTargets(app, r.id, g.id)).sort()).toEqual([`${p}-1`, `${p}-2`]);
    expect(g.totalTargets).toBe(2);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ notstarted: g.totalTargets }));
  });

  it('creating a rollout locks its distribution set (implicit.lock.enabled, on by default)', async () => {
    const set = (await createSet(app)).id;
    expect((await app.mgmt.get(`/rest/v1/distributionsets/${set}`)).json().locked).toBe(false);
    const p = uid();
    await createTargets(app, p, 1);
    await createRollout(app, { name: uid('lock'), targetFilterQuery: fleet(p), distributionSetId: set });
    expect((await app.mgmt.get(`/rest/v1/distributionsets/${set}`)).json().locked).toBe(true);
  });

  // hawkBit (every release): JpaRolloutManagement.createRollout counts the targets the filter matches and the set's
  // type takes; none is a ValidationException ("Rollout does not match any existing targets"), 400 constraintViolation
  it('a filter that matches no target, or only targets whose type refuses the set: 400 constraintViolation, nothing created', async () => {
    const p = uid();
    const type = { name: uid('type'), compatibledistributionsettypes: [{ id: await otherSetType(app) }] };
    const typeRes = await app.mgmt.post('/rest/v1/targettypes', { json: [type] });
    expect(typeRes.status, typeRes.text).toBe(201);
    await createTargets(app, p, 2, { targetType: typeRes.json()[0].id });
    const name = uid('empty');
    for (const [targetFilterQuery, groups] of [[`controllerid==${uid('nobody')}`, 2], [fleet(p), 1]] as const) {
      const res = await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery, distributionSetId: ds, amountGroups: groups } });
      expectError(res, 400, ERR.constraint, 'Rollout does not match any existing targets');
    }
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`)).json().total).toBe(0);
  });
});
