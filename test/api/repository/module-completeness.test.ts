/**
 * Software module types' `minArtifacts` and modules' `complete` (hawkBit 1.x): a module is complete
 * with at least its type's minArtifacts artifacts, a set is complete only when every module of it is,
 * and an incomplete set is not assigned (400 DS_INCOMPLETE), as hawkBit's getValidAndComplete refuses it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ROOT, ds, dsType, module, smType, unique, upload } from './fixture.js';

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind);
  });

  const moduleOf = async (id: number) => (await app.mgmt.get(`${ROOT}/softwaremodules/${id}`)).json();
  const setOf = async (id: number) => (await app.mgmt.get(`${ROOT}/distributionsets/${id}`)).json();
  const file = (name: string) => [{ name: 'file', filename: name, content: `content of ${name}` }];

  it('shows minArtifacts (default 0) on types and complete on modules; a module of a type without a minimum is complete empty', async () => {
    const plain = await smType(app);
    expect(plain.minArtifacts).toBe(0);
    const m = await module(app, plain.key);
    expect(m.complete).toBe(true);
    const two = await smType(app, { minArtifacts: 2 });
    expect(two.minArtifacts).toBe(2);
    expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/${two.id}`)).json().minArtifacts).toBe(2);
    // set at creation only, as in hawkBit (its PUT body has no minArtifacts)
    const put = await app.mgmt.put(`${ROOT}/softwaremoduletypes/${two.id}`, { json: { description: 'd', minArtifacts: 0 } });
    expect(put.status).toBe(200);
    expect(put.json()).toMatchObject({ description: 'd', minArtifacts: 2 });
  });

  it('completes a module and its set when the artifacts reach the minimum, and refuses to assign the set before', async () => {
    const type = await smType(app, { minArtifacts: 2 });
    const m = await module(app, type.key);
    expect(m.complete).toBe(false);
    const set = await ds(app, (await dsType(app, [type.id])).key, [m.id]);
    expect(set.complete).toBe(false);
    expect(set.modules[0].complete).toBe(false);
    const controllerId = unique('dev');
    expect((await app.mgmt.post(`${ROOT}/targets`, { json: [{ controllerId, name: controllerId }] })).status).toBe(201);
    const assign = () => app.mgmt.post(`${ROOT}/distributionsets/${set.id}/assignedTargets`, { json: [{ id: controllerId }] });

    expect((await upload(app, m.id, file('one.bin'))).status).toBe(201);
    expect((await moduleOf(m.id)).complete).toBe(false);
    const refused = await assign();
    expect(refused.status).toBe(400);
    expect(refused.json().errorCode).toBe('hawkbit.server.error.distributionset.incomplete');
    expect(refused.json().message).toContain("fewer artifacts than its type's minArtifacts");
    // nothing was written: no action, the target has no assigned set
    expect((await app.mgmt.get(`${ROOT}/targets/${controllerId}/actions`)).json().total).toBe(0);

    const second = await upload(app, m.id, file('two.bin'));
    expect(second.status).toBe(201);
    expect((await moduleOf(m.id)).complete).toBe(true);
    expect((await setOf(set.id)).complete).toBe(true);
    expect((await assign()).status).toBe(200);
    expect((await app.mgmt.get(`${ROOT}/targets/${controllerId}/actions`)).json().total).toBe(1);
  });

  it('counts an optional module with too few artifacts against its set, and lists modules with complete', async () => {
    const os = await smType(app);
    const app1 = await smType(app, { minArtifacts: 1 });
    const osModule = await module(app, os.key);
    const appModule = await module(app, app1.key);
    const set = await ds(app, (await dsType(app, [os.id], [app1.id])).key, [osModule.id, appModule.id]);
    expect(set.complete).toBe(false);
    const listed = (await app.mgmt.get(`${ROOT}/softwaremodules?q=type==${app1.key}`)).json();
    expect(listed.content).toEqual([expect.objectContaining({ id: appModule.id, complete: false })]);
    expect((await upload(app, appModule.id, file('app.bin'))).status).toBe(201);
    expect((await setOf(set.id)).complete).toBe(true);
    // deleting the artifact of an unlocked module makes it incomplete again
    const [artifact] = (await app.mgmt.get(`${ROOT}/softwaremodules/${appModule.id}/artifacts`)).json();
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${appModule.id}/artifacts/${artifact.id}`)).status).toBe(204);
    expect((await moduleOf(appModule.id)).complete).toBe(false);
    expect((await setOf(set.id)).complete).toBe(false);
  });
});
