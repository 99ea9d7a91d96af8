import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedTarget } from '../../helpers/seed.js';
import { ACTION } from '../../../src/domain/action.js';
import { ACTION_MACHINE_VERSION } from '../../../src/domain/action.machine.js';
import { created } from '../../../src/domain/audit.js';
import { TARGET_FILTER } from '../../../src/domain/targeting.js';
import { ROOT, completeSet, ds, dsType, module, smType, unique } from './fixture.js';

/** An action referring to a set, as an assignment would create it (the set counts as assigned). */
async function seedAction(app: App, dsId: number): Promise<number> {
  const target = await seedTarget(app, unique('dev'));
  const id = await app.store.nextIds(app.tenant, ACTION, 1);
  const record = {
    id, targetId: target.id, controllerId: target.controllerId, ds: dsId, actionType: 'forced', forceTime: 0, weight: null, status: 'running',
    active: true, maintenanceWindow: null, rollout: null, rolloutGroup: null, lastStatusCode: null, externalRef: null,
    lastEntry: null, entries: 0,
    ...created('seed', Date.now()),
  };
  const result = await app.store.commit(app.tenant, {
    writes: [{ kind: ACTION, id, expect: 0, after: { ...record, _mv: ACTION_MACHINE_VERSION } }],
  });
  expect(result.ok).toBe(true);
  return id;
}

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxSoftwareModulesPerDistributionSet: 3, maxMetaDataEntriesPerDistributionSet: 2 } });
  });

  it('creates a set with modules and reads it with the documented shape', async () => {
    const os = await smType(app);
    const apps = await smType(app, { maxAssignments: 5 });
    const m1 = await module(app, os.key);
    const m2 = await module(app, apps.key);
    const t = await dsType(app, [os.id], [apps.id]);
    const name = unique('rel');
    const res = await app.mgmt.post(`${ROOT}/distributionsets`, {
      json: [{ name, version: '1.0', description: 'release', type: t.key, modules: [{ id: m1.id }, { id: m2.id }], requiredMigrationStep: true }],
    });
    expect(res.status).toBe(201);
    const [d] = res.json();
    const self = `${app.url}${ROOT}/distributionsets/${d.id}`;
    expect(d).toMatchObject({
      name, version: '1.0', description: 'release', type: t.key, typeName: t.name, complete: true, deleted: false, valid: true, locked: false,
      requiredMigrationStep: true, createdBy: 'admin', lastModifiedBy: 'admin',
    });
    expect(d.modules.map((m: { id: number }) => m.id)).toEqual([m1.id, m2.id]);
    expect(d.modules[0]).toMatchObject({ id: m1.id, type: os.key, typeName: os.name, _links: { self: { href: `${app.url}${ROOT}/softwaremodules/${m1.id}` } } });
    expect(d._links).toEqual({
      self: { href: self },
      modules: { href: `${self}/assignedSM?offset=0&limit=50` },
      type: { href: `${app.url}${ROOT}/distributionsettypes/${t.id}` },
      metadata: { href: `${self}/metadata?offset=0&limit=50` },
    });
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${d.id}`)).json()).toEqual(d);
    const assigned = (await app.mgmt.get(`${ROOT}/distributionsets/${d.id}/assignedSM`)).json();
    expect(assigned).toMatchObject({ total: 2, size: 2 });
    expect(assigned.content.map((m: { id: number }) => m.id)).toEqual([m1.id, m2.id]);
  });

  it('computes complete from the mandatory module types and accepts the 0.x os/runtime/application shortcuts', async () => {
    const os = await smType(app);
    const rt = await smType(app);
    const t = await dsType(app, [os.id, rt.id]);
    const mOs = await module(app, os.key);
    const mRt = await module(app, rt.key);
    const half = await ds(app, t.key, [mOs.id]);
    expect(half.complete).toBe(false);
    const res = await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: unique('s'), version: '1', type: t.key, os: { id: mOs.id }, runtime: { id: mRt.id } }] });
    expect(res.status).toBe(201);
    expect(res.json()[0]).toMatchObject({ complete: true });
    expect((await app.mgmt.post(`${ROOT}/distributionsets/${half.id}/assignedSM`, { json: [{ id: mRt.id }] })).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${half.id}`)).json().complete).toBe(true);
  });

  it('checks modules against the type: unsupported 400, unknown 404, maxAssignments replaces, quota 403', async () => {
    const os = await smType(app);
    const foreign = await smType(app);
    const apps = await smType(app, { maxAssignments: 10 });
    const t = await dsType(app, [os.id], [apps.id]);
    const [o1, o2] = [await module(app, os.key), await module(app, os.key)];
    const f = await module(app, foreign.key);
    const unsupported = await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: unique('s'), version: '1', type: t.key, modules: [{ id: f.id }] }] });
    expect(unsupported.status).toBe(400);
    expect(unsupported.json().errorCode).toBe('hawkbit.server.error.distributionset.modules.unsupported');
    expect((await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: unique('s'), version: '1', type: t.key, modules: [{ id: 999999 }] }] })).status).toBe(404);
    // maxAssignments 1: the second OS module replaces the first, as hawkBit does
    const d = await ds(app, t.key, [o1.id, o2.id]);
    expect(d.modules.map((m: { id: number }) => m.id)).toEqual([o2.id]);
    const apps4 = await Promise.all([1, 2, 3].map(() => module(app, apps.key)));
    const quota = await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/assignedSM`, { json: apps4.map((m) => ({ id: m.id })) });
    expect(quota.status).toBe(403);
    expect(quota.json().errorCode).toBe('hawkbit.server.error.quota.tooManyEntries');
    expect((await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/assignedSM`, { json: [{ id: f.id }] })).status).toBe(400);
  });

  it.each([
    [[{ version: '1', type: 'x' }], 400, 'body[0].name'],
    [[{ name: 'n', type: 'x' }], 400, 'body[0].version'],
    [[{ name: 'n', version: '1', type: 'no-such-ds-type' }], 404, 'no-such-ds-type'],
    [[{ name: 'n', version: '1', type: 'x', modules: [{ id: -1 }] }], 400, 'body[0].modules[0].id'],
    [[{ name: 'n', version: '1', type: 'x', requiredMigrationStep: 'yes' }], 400, 'body[0].requiredMigrationStep'],
    [[{ name: 'n'.repeat(129), version: '1', type: 'x' }], 400, 'body[0].name'],
  ])('refuses %j with %i naming %s', async (body, status, text) => {
    const res = await app.mgmt.post(`${ROOT}/distributionsets`, { json: body });
    expect(res.status).toBe(status);
    expect(res.json().message).toContain(text);
  });

  it('answers 409 for a taken name and version, on create and update', async () => {
    const { ds: a, dsType: t } = await completeSet(app);
    expect((await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: a.name, version: a.version, type: t.key }] })).status).toBe(409);
    const b = await ds(app, t.key, []);
    const put = await app.mgmt.put(`${ROOT}/distributionsets/${b.id}`, { json: { name: a.name, version: a.version } });
    expect(put.status).toBe(409);
  });

  it('updates fields; requiredMigrationStep only while unassigned (403 after)', async () => {
    const { ds: d } = await completeSet(app);
    const put = await app.mgmt.put(`${ROOT}/distributionsets/${d.id}`, { json: { name: unique('renamed'), description: 'x', requiredMigrationStep: true } });
    expect(put.status).toBe(200);
    expect(put.json()).toMatchObject({ description: 'x', requiredMigrationStep: true, version: '1.0' });
    await seedAction(app, d.id);
    const frozen = await app.mgmt.put(`${ROOT}/distributionsets/${d.id}`, { json: { requiredMigrationStep: false } });
    expect(frozen.status).toBe(403);
    expect(frozen.json().errorCode).toBe('hawkbit.server.error.entityReadOnly');
    expect((await app.mgmt.put(`${ROOT}/distributionsets/${d.id}`, { json: { requiredMigrationStep: true, description: 'y' } })).status).toBe(200);
    // an assigned set's modules are frozen too
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${d.id}/assignedSM/${d.modules[0].id}`)).status).toBe(403);
  });

  it('keeps the modules of a locked set (423) and of an assigned one', async () => {
    const { ds: d, module: m, smType: os } = await completeSet(app);
    const other = await module(app, os.key);
    expect((await app.mgmt.put(`${ROOT}/distributionsets/${d.id}`, { json: { locked: true } })).json().locked).toBe(true);
    const add = await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/assignedSM`, { json: [{ id: other.id }] });
    expect(add.status).toBe(423);
    expect(add.json().errorCode).toBe('hawkbit.server.error.locked');
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${d.id}/assignedSM/${m.id}`)).status).toBe(423);
    expect((await app.mgmt.put(`${ROOT}/distributionsets/${d.id}`, { json: { locked: false } })).json().locked).toBe(false);
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${d.id}/assignedSM/${m.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${d.id}`)).json()).toMatchObject({ modules: [], complete: false });
  });

  it('hard-deletes an unassigned set, soft-deletes an assigned one and stops auto-assignments', async () => {
    const { ds: unused } = await completeSet(app);
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${unused.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${unused.id}`)).status).toBe(404);

    const { ds: used } = await completeSet(app);
    await seedAction(app, used.id);
    const filterId = await app.store.nextIds(app.tenant, TARGET_FILTER, 1);
    await app.store.commit(app.tenant, { writes: [{ kind: TARGET_FILTER, id: filterId, expect: 0, after: {
      id: filterId, name: unique('f'), query: 'name==*', autoAssignDs: used.id, autoAssignActionType: 'forced', autoAssignWeight: null,
      confirmationRequired: null, autoAssignInitiatedBy: 'admin', ...created('admin', Date.now()),
    } }] });
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${used.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${used.id}`)).json()).toMatchObject({ deleted: true });
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=id==${used.id}`)).json().total).toBe(0);
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=id==${used.id}&soft_deleted_mode=ONLY_SOFT_DELETED`)).json().total).toBe(1);
    expect((await app.store.get<{ autoAssignDs: number | null }>(app.tenant, TARGET_FILTER, filterId))?.value.autoAssignDs).toBeNull();
    expect((await app.mgmt.put(`${ROOT}/distributionsets/${used.id}`, { json: { description: 'x' } })).status).toBe(404);
    // name and version are free again
    expect((await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: used.name, version: used.version, type: used.type }] })).status).toBe(201);
  });

  it('filters on the documented fields (type, module, tag, metadata, valid) and sorts', async () => {
    const { ds: d, module: m, dsType: t } = await completeSet(app);
    const other = await ds(app, t.key, []);
    const tag = (await app.mgmt.post(`${ROOT}/distributionsettags`, { json: [{ name: unique('tag') }] })).json()[0];
    expect((await app.mgmt.post(`${ROOT}/distributionsettags/${tag.id}/assigned`, { json: [d.id] })).status).toBe(204);
    expect((await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/metadata`, { json: [{ key: 'channel', value: 'beta' }] })).status).toBe(201);
    const q = async (query: string) => (await app.mgmt.get(`${ROOT}/distributionsets?q=${encodeURIComponent(query)}`)).json();
    expect((await q(`type==${t.key}`)).content.map((x: { id: number }) => x.id)).toEqual([d.id, other.id]);
    expect((await q(`type.id==${t.id};module.id==${m.id}`)).content.map((x: { id: number }) => x.id)).toEqual([d.id]);
    expect((await q(`module.name==${m.name}`)).total).toBe(1);
    expect((await q(`tag==${tag.name}`)).content.map((x: { id: number }) => x.id)).toEqual([d.id]);
    expect((await q(`metadata.channel==beta`)).total).toBe(1);
    expect((await q(`type==${t.key};valid==true`)).total).toBe(2);
    const sorted = (await app.mgmt.get(`${ROOT}/distributionsets?q=type==${t.key}&sort=id:DESC`)).json();
    expect(sorted.content.map((x: { id: number }) => x.id)).toEqual([other.id, d.id]);
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=nosuchfield==1`)).status).toBe(400);
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=name=bogus=1`)).status).toBe(400);
    expect((await app.mgmt.get(`${ROOT}/distributionsets?sort=modules:ASC`)).json().errorCode).toBe('hawkbit.server.error.rest.param.invalidField');
    expect((await app.mgmt.get(`${ROOT}/distributionsets?limit=zero`)).status).toBe(400);
  });

  it('keeps metadata: create 201, list, get, put 200 with the entry, delete 204; quota 403', async () => {
    const { ds: d } = await completeSet(app);
    const base = `${ROOT}/distributionsets/${d.id}/metadata`;
    const res = await app.mgmt.post(base, { json: { key: 'a', value: '1' } });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual([{ key: 'a', value: '1' }]);
    expect((await app.mgmt.get(base)).json()).toEqual({ content: [{ key: 'a', value: '1' }], total: 1, size: 1 });
    expect((await app.mgmt.get(`${base}/a`)).json()).toEqual({ key: 'a', value: '1' });
    const put = await app.mgmt.put(`${base}/a`, { json: { key: 'a', value: '2' } });
    expect(put.status).toBe(200); // spec 4.4: 200 {key, value}
    expect(put.json()).toEqual({ key: 'a', value: '2' });
    expect((await app.mgmt.get(`${base}/a`)).json()).toEqual({ key: 'a', value: '2' });
    expect((await app.mgmt.post(base, { json: [{ key: 'a', value: 'x' }] })).status).toBe(409);
    expect((await app.mgmt.post(base, { json: [{ key: 'b', value: 'x' }, { key: 'c', value: 'x' }] })).status).toBe(403);
    expect((await app.mgmt.delete(`${base}/a`)).status).toBe(204);
    expect((await app.mgmt.get(`${base}/a`)).status).toBe(404);
  });

  it('invalidates a complete set: valid false, open actions canceled; incomplete sets answer 400', async () => {
    const { ds: d } = await completeSet(app);
    const actionId = await seedAction(app, d.id);
    const res = await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/invalidate`, { json: { actionCancelationType: 'soft' } });
    expect(res.status, res.text).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${d.id}`)).json().valid).toBe(false);
    expect((await app.store.get<{ status: string }>(app.tenant, ACTION, actionId))?.value.status).toBe('canceling');
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=${encodeURIComponent(`id==${d.id};valid==false`)}`)).json().total).toBe(1);
    expect((await app.mgmt.post(`${ROOT}/distributionsets/${d.id}/invalidate`, { json: { actionCancelationType: 'sometimes' } })).status).toBe(400);
    const t = await dsType(app, [(await smType(app)).id]);
    const incomplete = await ds(app, t.key, []);
    const refused = await app.mgmt.post(`${ROOT}/distributionsets/${incomplete.id}/invalidate`, { json: { actionCancelationType: 'none' } });
    expect(refused.status).toBe(400);
    expect(refused.json().errorCode).toBe('hawkbit.server.error.distributionset.incomplete');
  });
});
