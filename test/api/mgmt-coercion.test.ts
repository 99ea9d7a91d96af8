import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../helpers/app.js';
import { ERR, expectError } from './targets/fixtures.js';

/**
 * Quoted scalars in Management bodies are read as Jackson reads them for hawkBit (issue 7 item 10):
 * `"3"` where a number goes, `"false"` where a boolean goes, numbers where text goes; what Jackson
 * refuses (`"abc"` for a number, `"yes"` for a boolean) stays 400 naming the field. The coercion
 * lives in the kit's body blocks (src/mgmt/kit/body.ts), so every resource reads bodies this way.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe.each(STORES)('quoted scalars in Management bodies, %s store', (kind) => {
  let app: App;
  let n = 0;
  const key = (prefix: string): string => `${prefix}-${kind}-${++n}`;
  const created = async (path: string, json: unknown): Promise<Json> => {
    const res = await app.mgmt.post(path, { json });
    expect(res.status, res.text).toBe(201);
    return res.json()[0];
  };
  beforeAll(async () => {
    app = await startApp(kind);
  });

  /** A module type, a module, a set type and a complete set, each created with quoted ids and numbers. */
  async function quotedSet(): Promise<{ ds: Json; module: Json }> {
    const smType = await created('/rest/v1/softwaremoduletypes', [{ key: key('smt'), name: key('smt'), maxAssignments: '2' }]);
    expect(smType.maxAssignments).toBe(2);
    const module = await created('/rest/v1/softwaremodules', [{ name: key('sm'), version: 1.5, type: smType.key, encrypted: 'false' }]);
    expect(module).toMatchObject({ version: '1.5', encrypted: false });
    const dsType = await created('/rest/v1/distributionsettypes', [{ key: key('dst'), name: key('dst'), mandatorymodules: [{ id: String(smType.id) }] }]);
    const ds = await created('/rest/v1/distributionsets', [{
      name: key('ds'), version: '1', type: dsType.key, modules: [{ id: String(module.id) }], requiredMigrationStep: 'false',
    }]);
    expect(ds).toMatchObject({ requiredMigrationStep: false, complete: true, modules: [{ id: module.id }] });
    return { ds, module };
  }

  it('creates the repository from quoted ids, numbers and booleans', async () => {
    const { ds } = await quotedSet();
    const put = await app.mgmt.put(`/rest/v1/distributionsets/${ds.id}`, { json: { requiredMigrationStep: 'TRUE', locked: ' false ' } });
    expect(put.status, put.text).toBe(200);
    expect(put.json()).toMatchObject({ requiredMigrationStep: true, locked: false });
  });

  it('assigns with {"id":"3","weight":"100"}; "" counts as no weight (1000)', async () => {
    const { ds } = await quotedSet();
    await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: key('dev'), name: 'x' }, { controllerId: key('dev') }] });
    const [a, b] = [`dev-${kind}-${n - 1}`, `dev-${kind}-${n}`];
    const res = await app.mgmt.post(`/rest/v1/targets/${a}/assignedDS`, { json: { id: String(ds.id), weight: '100', confirmationRequired: 'false' } });
    expect(res.status, res.text).toBe(200);
    const actionId = res.json().assignedActions[0].id;
    expect((await app.mgmt.get(`/rest/v1/targets/${a}/actions/${actionId}`)).json()).toMatchObject({ weight: 100 });
    const bySet = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, { json: [{ id: b, weight: '' }] });
    expect(bySet.status, bySet.text).toBe(200);
    expect((await app.mgmt.get(`/rest/v1/targets/${b}/actions/${bySet.json().assignedActions[0].id}`)).json()).toMatchObject({ weight: 1000 });
  });

  it('tags sets named by quoted ids (["3"]) and targets named by numbers', async () => {
    const { ds } = await quotedSet();
    const dsTag = await created('/rest/v1/distributionsettags', [{ name: key('dstag') }]);
    expect((await app.mgmt.post(`/rest/v1/distributionsettags/${dsTag.id}/assigned`, { json: [String(ds.id)] })).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/distributionsettags/${dsTag.id}/assigned`)).json().content.map((d: { id: number }) => d.id)).toEqual([ds.id]);
    const numeric = 900_000 + n;
    await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: numeric }] });
    const tag = await created('/rest/v1/targettags', [{ name: key('tag'), description: 42 }]);
    expect(tag.description).toBe('42');
    expect((await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [numeric] })).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/targets/${numeric}/tags`)).json().map((t: { id: number }) => t.id)).toEqual([tag.id]);
  });

  it.each([
    ['/rest/v1/softwaremoduletypes', [{ key: 'k-abc', name: 'k-abc', maxAssignments: 'abc' }], 'body[0].maxAssignments'],
    ['/rest/v1/softwaremoduletypes', [{ key: 'k-frac', name: 'k-frac', maxAssignments: '1.5' }], 'body[0].maxAssignments'],
    ['/rest/v1/softwaremoduletypes', [{ key: 'k-bool', name: 'k-bool', maxAssignments: true }], 'body[0].maxAssignments'],
    ['/rest/v1/softwaremodules', [{ name: 'n', version: '1', type: 'os', encrypted: 'yes' }], 'body[0].encrypted'],
    ['/rest/v1/distributionsets', [{ name: 'n', version: '1', type: 'os', modules: [{ id: 'two' }] }], 'body[0].modules[0].id'],
    ['/rest/v1/targets', [{ controllerId: 'c-1', requestAttributes: 'maybe' }], 'body[0].requestAttributes'],
  ])('still refuses what Jackson refuses: POST %s %j', async (path, json, field) => {
    expectError(await app.mgmt.post(path, { json }), 400, ERR.body, field);
  });

  it('refuses a quoted non-number where an assignment needs one', async () => {
    await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: key('dev') }] });
    const cid = `dev-${kind}-${n}`;
    expectError(await app.mgmt.post(`/rest/v1/targets/${cid}/assignedDS`, { json: { id: 'abc' } }), 400, ERR.body, 'id');
    expectError(await app.mgmt.post(`/rest/v1/targets/${cid}/assignedDS`, { json: { id: '1', weight: 'heavy' } }), 400, ERR.body, 'weight');
  });
});
