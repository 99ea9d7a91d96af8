import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementApiGeneration } from '../../../src/domain/compat.js';
import { STORES, startAppOn, storeOptions, tenantFor, type App, type StoreKind } from '../../helpers/app.js';
import { ConfigError, parseConfig } from '../../../src/config/index.js';
import { parseYaml } from '../../../src/config/load.js';
import { ADMIN_HASH, startTestServer, type TestResponse } from '../../helpers/server.js';
import { completeSet, module, unique, upload } from '../repository/fixture.js';

/**
 * `compat.managementApi` (issue 23): the Management API's affected cases run in both generations,
 * set system-wide in config.yaml and overridden per tenant in its configuration. "0.9" (the default)
 * is the spec's form; "1.x" hawkBit 1.x's (action status, write replies, quota statuses).
 */
const KEY = 'compat.managementApi';
const QUOTA = 'hawkbit.server.error.quota.tooManyEntries';
const FILE_SIZE = 'hawkbit.server.error.quota.fileSizeExceeded';

/** One app per store and config.yaml default, with small quotas so every quota is in reach. */
async function startCompatApp(kind: StoreKind, managementApi?: string): Promise<App> {
  const tenant = tenantFor(kind, 'C');
  return startAppOn(storeOptions(kind), tenant, {
    ...(managementApi === undefined ? {} : { compat: { managementApi } }),
    quotas: { maxMetaDataEntriesPerTarget: 2, maxMessagesPerActionStatus: 2, maxArtifactSize: 1000, maxTargetsPerRolloutGroup: 1 },
    tenants: [{
      name: tenant,
      users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }],
      config: { 'authentication.targettoken.enabled': true },
    }],
  });
}

function expectError(res: TestResponse, status: number, errorCode: string): void {
  const got = res.status === status ? res.json<{ errorCode: string }>().errorCode : res.text;
  expect({ status: res.status, errorCode: got }).toEqual({ status, errorCode });
}

/** What each generation answers. */
const EXPECT = {
  '0.9': { quota: 403, metadataCreate: 'entries', metadataUpdate: 200, configWrite: 200 },
  '1.x': { quota: 429, metadataCreate: 'empty', metadataUpdate: 204, configWrite: 204 },
} as const;

/**
 * The affected cases, against an app whose tenant is (by now) in `generation`: actions in each state
 * (running, error, finished) and FIQL on `status`, metadata and configuration writes, and every kind
 * of quota violation (Management metadata, rollout groups, artifact size, a DDI status report).
 */
function affectedCases(getApp: () => App, generation: ManagementApiGeneration): void {
  let app: App;
  let prefix: string;
  let set: { ds: { id: number }; module: { id: number }; smType: { key: string } };
  const ids: Record<'running' | 'error' | 'finished', number> = { running: 0, error: 0, finished: 0 };
  const inMode = (q: string) => `/rest/v1/actions?limit=50&q=${encodeURIComponent(`${q};target.controllerid==${prefix}*`)}`;

  beforeAll(async () => {
    app = getApp();
    expect((await app.mgmt.get(`/rest/v1/system/configs/${KEY}`)).json().value).toBe(generation);
    prefix = unique(`g${generation.replace('.', '')}`);
    set = await completeSet(app);
    const created = await app.mgmt.post('/rest/v1/targets', { json: (['running', 'error', 'finished'] as const).map((s) => ({ controllerId: `${prefix}-${s}`, name: s })) });
    expect(created.status, created.text).toBe(201);
    const tokens = new Map(created.json<{ controllerId: string; securityToken: string }[]>().map((t) => [t.controllerId, t.securityToken]));
    for (const state of ['running', 'error', 'finished'] as const) {
      const controllerId = `${prefix}-${state}`;
      const assigned = await app.mgmt.post(`/rest/v1/targets/${controllerId}/assignedDS`, { json: { id: set.ds.id } });
      expect(assigned.status, assigned.text).toBe(200);
      ids[state] = assigned.json().assignedActions[0].id;
      if (state === 'running') continue;
      const feedback = await app.anon.post(`${app.ddi}/${controllerId}/deploymentBase/${ids[state]}/feedback`, {
        headers: { authorization: `TargetToken ${tokens.get(controllerId) ?? ''}` },
        json: { id: String(ids[state]), status: { execution: 'closed', result: { finished: state === 'error' ? 'failure' : 'success' } } },
      });
      expect(feedback.status, feedback.text).toBe(200);
    }
  });

  it(`writes action status as ${generation} does`, async () => {
    const read = async (state: keyof typeof ids) => (await app.mgmt.get(`/rest/v1/targets/${prefix}-${state}/actions/${ids[state]}`)).json();
    const running = await read('running');
    const failed = await read('error');
    const finished = await read('finished');
    const listed = (await app.mgmt.get(`/rest/v1/actions/${ids.error}`)).json();
    if (generation === '0.9') {
      expect(running).toMatchObject({ status: 'pending', detailStatus: 'running', active: true });
      expect(failed).toMatchObject({ status: 'finished', detailStatus: 'error', active: false });
      expect(finished).toMatchObject({ status: 'finished', detailStatus: 'finished', active: false });
      expect(listed).toMatchObject({ status: 'finished', detailStatus: 'error', active: false });
    } else {
      for (const [json, status, active] of [[running, 'running', true], [failed, 'error', false], [finished, 'finished', false], [listed, 'error', false]] as const) {
        expect(json).toMatchObject({ status, active });
        expect(json).not.toHaveProperty('detailStatus');
      }
    }
    const page = (await app.mgmt.get(`/rest/v1/targets/${prefix}-error/actions`)).json().content[0];
    expect(page.status).toBe(generation === '0.9' ? 'finished' : 'error');
  });

  it(`FIQL status== means the ${generation} value`, async () => {
    const found = async (q: string) =>
      (await app.mgmt.get(inMode(q))).json<{ content: { id: number }[] }>().content.map((a) => a.id).sort((a, b) => a - b);
    // a 1.x script counting failed actions finds them in both (0.9 takes the detailed values too)
    expect(await found('status==error')).toEqual([ids.error]);
    expect(await found('status==running')).toEqual([ids.running]);
    expect(await found('detailstatus==error')).toEqual([ids.error]);
    expect(await found('active==false')).toEqual([ids.error, ids.finished].sort((a, b) => a - b));
    if (generation === '0.9') {
      expect(await found('status==finished')).toEqual([ids.error, ids.finished].sort((a, b) => a - b)); // every closed action
      expect(await found('status==pending')).toEqual([ids.running]);
      expect(await found('status!=finished')).toEqual([ids.running]);
    } else {
      expect(await found('status==finished')).toEqual([ids.finished]); // failed actions are not finished
      expect(await found('status!=finished')).toEqual([ids.running, ids.error].sort((a, b) => a - b));
      expect(await found('status=in=(ERROR,finished)')).toEqual([ids.error, ids.finished].sort((a, b) => a - b));
      const pending = await app.mgmt.get(inMode('status==pending'));
      expect(pending.status, pending.text).toBe(400);
      expect(pending.json().errorCode).toMatch(/^hawkbit\.server\.error\.rest\.param\.rsql/);
      expect(pending.json().message).toMatch(/pending/);
    }
  });

  it.each([
    ['targets', () => `/rest/v1/targets/${prefix}-running`],
    ['software modules', () => `/rest/v1/softwaremodules/${set.module.id}`],
    ['distribution sets', () => `/rest/v1/distributionsets/${set.ds.id}`],
  ])(`answers metadata writes of %s as ${generation} does`, async (_, owner) => {
    const base = `${owner()}/metadata`;
    const key = unique('k');
    const create = await app.mgmt.post(base, { json: [{ key, value: 'one' }] });
    expect(create.status, create.text).toBe(201);
    if (EXPECT[generation].metadataCreate === 'entries') expect(create.json()).toEqual([expect.objectContaining({ key, value: 'one' })]);
    else expect(create.text).toBe('');
    const update = await app.mgmt.put(`${base}/${key}`, { json: { key, value: 'two' } });
    expect(update.status, update.text).toBe(EXPECT[generation].metadataUpdate);
    if (generation === '0.9') expect(update.json()).toMatchObject({ key, value: 'two' });
    else expect(update.text).toBe('');
    // written either way
    expect((await app.mgmt.get(`${base}/${key}`)).json()).toMatchObject({ key, value: 'two' });
    expect((await app.mgmt.delete(`${base}/${key}`)).status).toBe(204);
  });

  it(`answers configuration writes as ${generation} does`, async () => {
    const one = await app.mgmt.put('/rest/v1/system/configs/maintenanceWindowPollCount', { json: { value: 4 } });
    expect(one.status, one.text).toBe(EXPECT[generation].configWrite);
    if (generation === '0.9') expect(one.json()).toMatchObject({ value: 4, global: false });
    else expect(one.text).toBe('');
    const bulk = await app.mgmt.put('/rest/v1/system/configs', { json: { maintenanceWindowPollCount: 5, 'rollout.approval.enabled': false } });
    expect(bulk.status, bulk.text).toBe(EXPECT[generation].configWrite);
    if (generation === '0.9') expect(bulk.json()).toEqual([expect.objectContaining({ value: 5 }), expect.objectContaining({ value: false })]);
    else expect(bulk.text).toBe('');
    expect((await app.mgmt.get('/rest/v1/system/configs/maintenanceWindowPollCount')).json()).toMatchObject({ value: 5, global: false });
    expect((await app.mgmt.delete('/rest/v1/system/configs/maintenanceWindowPollCount')).status).toBe(204);
    expect((await app.mgmt.delete('/rest/v1/system/configs/rollout.approval.enabled')).status).toBe(204);
  });

  it(`answers every kind of quota violation ${EXPECT[generation].quota} in ${generation}`, async () => {
    const status = EXPECT[generation].quota;
    // metadata entries per target (Management)
    const meta = `/rest/v1/targets/${prefix}-finished/metadata`;
    expectError(await app.mgmt.post(meta, { json: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }, { key: 'c', value: '3' }] }), status, QUOTA);
    expect((await app.mgmt.get(meta)).json().total).toBe(0); // nothing half-written
    // targets per rollout group (was the one quota answered 429 in 0.9 mode)
    const rollout = await app.mgmt.post('/rest/v1/rollouts', {
      json: { name: unique('r'), distributionSetId: set.ds.id, targetFilterQuery: `controllerId==${prefix}-*`, amountGroups: 1 },
    });
    expectError(rollout, status, QUOTA);
    // artifact size (to a module of its own: the assigned set's module is locked)
    const unlocked = await module(app, set.smType.key);
    expectError(await upload(app, unlocked.id, [{ name: 'file', filename: 'big.bin', content: Buffer.alloc(2000) }]), status, FILE_SIZE);
    // messages per status report, from a device (DDI): one status per errorCode in either generation
    const target = (await app.mgmt.get(`/rest/v1/targets/${prefix}-running`)).json<{ securityToken: string }>();
    const report = await app.anon.post(`${app.ddi}/${prefix}-running/deploymentBase/${ids.running}/feedback`, {
      headers: { authorization: `TargetToken ${target.securityToken}` },
      json: { id: String(ids.running), status: { execution: 'proceeding', result: { finished: 'none' }, details: ['a', 'b', 'c', 'd'] } },
    });
    expectError(report, status, QUOTA);
  });
}

describe.each(STORES)('compat.managementApi on the %s store', (kind) => {
  describe('config.yaml default (0.9)', () => {
    let app: App;
    beforeAll(async () => {
      app = await startCompatApp(kind);
    });
    afterAll(async () => app.server.close());

    it('shows the switch as a global tenant configuration key', async () => {
      const res = await app.mgmt.get(`/rest/v1/system/configs/${KEY}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toMatchObject({ value: '0.9', global: true });
      expect((await app.mgmt.get('/rest/v1/system/configs')).json()[KEY]).toMatchObject({ value: '0.9', global: true });
    });

    it('refuses an unknown generation with a clear 400 and keeps the value', async () => {
      for (const value of ['2.0', '1.X', '', 1, 0.9, true, null]) {
        const res = await app.mgmt.put(`/rest/v1/system/configs/${KEY}`, { json: { value } });
        expect(res.status, `${JSON.stringify(value)}: ${res.text}`).toBe(400);
        expect(res.json().errorCode).toBe('hawkbit.server.error.configValueInvalid');
        expect(res.json().message).toContain(KEY);
      }
      const bulk = await app.mgmt.put('/rest/v1/system/configs', { json: { maintenanceWindowPollCount: 6, [KEY]: '1.0' } });
      expect(bulk.status, bulk.text).toBe(400);
      expect(bulk.json().message).toMatch(/"0\.9", "1\.x"/);
      // all or none: neither key was written
      expect((await app.mgmt.get(`/rest/v1/system/configs/${KEY}`)).json()).toMatchObject({ value: '0.9', global: true });
      expect((await app.mgmt.get('/rest/v1/system/configs/maintenanceWindowPollCount')).json()).toMatchObject({ value: 3, global: true });
    });

    describe('0.9 by default', () => affectedCases(() => app, '0.9'));

    describe('1.x by the tenant configuration', () => {
      beforeAll(async () => {
        const res = await app.mgmt.put(`/rest/v1/system/configs/${KEY}`, { json: { value: '1.x' } });
        expect(res.status, res.text).toBe(204); // the reply is in the generation in force after the write
      });
      affectedCases(() => app, '1.x');
    });
  });

  describe('config.yaml compat.managementApi: "1.x"', () => {
    let app: App;
    beforeAll(async () => {
      app = await startCompatApp(kind, '1.x');
    });
    afterAll(async () => app.server.close());

    it('shows 1.x as the global value', async () => {
      expect((await app.mgmt.get(`/rest/v1/system/configs/${KEY}`)).json()).toMatchObject({ value: '1.x', global: true });
    });

    describe('1.x from config.yaml', () => affectedCases(() => app, '1.x'));

    describe('0.9 by the tenant configuration', () => {
      beforeAll(async () => {
        const res = await app.mgmt.put(`/rest/v1/system/configs/${KEY}`, { json: { value: '0.9' } });
        expect(res.status, res.text).toBe(200);
        expect(res.json()).toMatchObject({ value: '0.9', global: false });
      });
      affectedCases(() => app, '0.9');

      it('DELETE returns the tenant to the config.yaml default', async () => {
        expect((await app.mgmt.delete(`/rest/v1/system/configs/${KEY}`)).status).toBe(204);
        expect((await app.mgmt.get(`/rest/v1/system/configs/${KEY}`)).json()).toMatchObject({ value: '1.x', global: true });
        expect((await app.mgmt.put('/rest/v1/system/configs/maintenanceWindowPollCount', { json: { value: 3 } })).status).toBe(204);
      });
    });
  });
});

describe('compat.managementApi in config.yaml', () => {
  it.each([['2.0', '"2.0"'], ['1.X', '"1.X"'], [1, '1'], [true, 'true'], ['', '""']])('%j stops the start, naming the key', async (value, shown) => {
    const managementApi = value as '0.9';
    const err = await startTestServer({ compat: { managementApi } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(`test config: compat.managementApi: expected "0.9" or "1.x", got ${shown}`);
  });

  it('takes "1.x", and 0.9 written unquoted (a YAML number) as "0.9"; the default is "0.9"', () => {
    expect(parseConfig(parseYaml('compat:\n  managementApi: 1.x\n', 'config.yaml')).compat.managementApi).toBe('1.x');
    expect(parseConfig(parseYaml('compat:\n  managementApi: 0.9\n', 'config.yaml')).compat.managementApi).toBe('0.9');
    expect(parseConfig({}).compat).toEqual({ managementApi: '0.9' });
    expect(() => parseConfig({ compat: { managementApi: '1.x', other: 1 } })).toThrow(ConfigError);
  });

  it('refuses an unknown generation seeded for a tenant, naming the key', async () => {
    const start = startTestServer({ tenants: [{ name: 'SEEDED', users: [], config: { [KEY]: '2.0' } }] });
    await expect(start).rejects.toThrow(`config.yaml: tenants[].config.${KEY}: expected one of "0.9", "1.x"`);
    const unquoted = startTestServer({ tenants: [{ name: 'SEEDED', users: [], config: { [KEY]: 0.9 } }] });
    await expect(unquoted).rejects.toThrow(`config.yaml: tenants[].config.${KEY}: expected one of "0.9", "1.x" (a string: quote it)`);
  });

  it('a tenant seeded with "1.x" speaks it (global false) while the system default stays "0.9"', async () => {
    const server = await startTestServer({
      tenants: [{ name: 'SEEDED', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }], config: { [KEY]: '1.x' } }],
    });
    const res = await fetch(`${server.url}/rest/v1/system/configs/${KEY}`, { headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } });
    expect(await res.json()).toMatchObject({ value: '1.x', global: false });
    const write = await fetch(`${server.url}/rest/v1/system/configs/pollingTime`, {
      method: 'PUT', body: JSON.stringify({ value: '01:00:00' }),
      headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}`, 'content-type': 'application/json' },
    });
    expect(write.status).toBe(204);
  });
});
