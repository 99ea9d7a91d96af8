import { beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_KEY_NAMES } from '../../../src/domain/tenant-config.js';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ADMIN_HASH, startTestServer } from '../../helpers/server.js';
import { ERR, expectError } from '../targets/fixtures.js';

const KEY_INVALID = 'hawkbit.server.error.configKeyInvalid';
const VALUE_INVALID = 'hawkbit.server.error.configValueInvalid';
const NOT_ALLOWED = 'hawkbit.server.error.repo.tenantConfigurationValueChangeNotAllowed';
const GATEWAY_KEY = 'authentication.gatewaytoken.key';

describe.each(STORES)('tenant configuration on the %s store', (kind) => {
  let app: App;
  const configurer = { auth: 'configurer:admin' };
  beforeAll(async () => {
    app = await startApp(kind, {}, [{ username: 'configurer', password: ADMIN_HASH, permissions: ['TENANT_CONFIGURATION'] }]);
  });
  const put = (key: string, json: unknown) => app.mgmt.put(`/rest/v1/system/configs/${key}`, { json });
  const get = (key: string) => app.mgmt.get(`/rest/v1/system/configs/${key}`);

  it('lists every key with its value, global flag and self link', async () => {
    const res = await app.mgmt.get('/rest/v1/system/configs');
    expect(res.status).toBe(200);
    const all = res.json();
    expect(Object.keys(all).sort()).toEqual([...CONFIG_KEY_NAMES, 'default.ds.type'].sort());
    expect(all.pollingTime).toEqual({ value: '12:00:00', global: true, _links: { self: { href: `${app.url}/rest/v1/system/configs/pollingTime` } } });
    expect(all['multi.assignments.enabled']).toMatchObject({ value: false, global: true });
    expect(all[GATEWAY_KEY]).toMatchObject({ value: '', global: true });
  });

  it('reads one key; unknown keys are 400 on every operation', async () => {
    expect((await get('maintenanceWindowPollCount')).json()).toMatchObject({ value: 3, global: true });
    expectError(await get('no.such.key'), 400, KEY_INVALID, 'no.such.key');
    expectError(await put('no.such.key', { value: true }), 400, KEY_INVALID);
    expectError(await app.mgmt.delete('/rest/v1/system/configs/no.such.key'), 400, KEY_INVALID);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: { 'no.such.key': 1 } }), 400, KEY_INVALID);
  });

  it.each([
    ['rollout.approval.enabled', true, true],
    ['authentication.targettoken.enabled', 'true', true],
    ['maintenanceWindowPollCount', 5, 5],
    ['maintenanceWindowPollCount', '7', 7],
    ['action.cleanup.actionExpiry', 86_400_000, 86_400_000],
    ['pollingTime', '00:10:00', '00:10:00'],
    ['pollingOverdueTime', '01:00:00', '01:00:00'],
    ['action.cleanup.actionStatus', 'canceled, error', 'CANCELED,ERROR'],
    ['authentication.header.authority', 'abc123,def456', 'abc123,def456'],
  ])('writes %s = %j (stored as %j), then DELETE restores the default', async (key, value, stored) => {
    const res = await put(key, { value });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ value: stored, global: false }); // spec 4.7: the entry with global false
    const entry = (await get(key)).json();
    expect(entry).toMatchObject({ value: stored, global: false, createdBy: 'admin', lastModifiedBy: 'admin' });
    expect(entry.createdAt).toEqual(expect.any(Number));
    expect(entry.lastModifiedAt).toEqual(expect.any(Number));
    expect(entry._links.self.href).toBe(`${app.url}/rest/v1/system/configs/${key}`);
    expect((await get(key)).json()).toMatchObject({ value: stored, global: false });
    expect((await app.mgmt.get('/rest/v1/system/configs')).json()[key]).toMatchObject({ value: stored, global: false });
    expect((await app.mgmt.delete(`/rest/v1/system/configs/${key}`)).status).toBe(204);
    const after = (await get(key)).json();
    expect(after.global).toBe(true);
    expect(after).not.toHaveProperty('createdBy');
    expect((await app.mgmt.delete(`/rest/v1/system/configs/${key}`)).status).toBe(204); // nothing stored: still fine
  });

  it.each([
    ['rollout.approval.enabled', 'yes', 'expected a boolean'],
    ['rollout.approval.enabled', 1, 'expected a boolean'],
    ['maintenanceWindowPollCount', 1.5, 'whole number'],
    ['maintenanceWindowPollCount', 'abc', 'whole number'],
    ['maintenanceWindowPollCount', 0, 'at least 1'],
    ['maintenanceWindowPollCount', 2 ** 40, '32-bit'],
    ['action.cleanup.actionExpiry', -1, 'negative'],
    ['pollingTime', '25:00:00', 'HH:MM:SS'],
    ['pollingTime', 600, 'HH:MM:SS'],
    ['pollingTime', '00:00:10', 'minPollingTime'],
    ['action.cleanup.actionStatus', 'canceled,bogus', 'bogus'],
    ['authentication.header.authority', 5, 'expected a string'],
    ['authentication.header.authority', 'x'.repeat(1025), '1024'],
    ['rollout.approval.enabled', null, 'expected a boolean'],
    ['rollout.approval.enabled', { nested: true }, 'expected a boolean'],
  ])('refuses %s = %j with 400', async (key, value, mentions) => {
    expectError(await put(key, { value }), 400, VALUE_INVALID, mentions);
    expect((await get(key)).json().global).toBe(true);
  });

  // audit: the gateway key took values no device can send in `Authorization: GatewayToken <key>`
  it.each([['', 'blank'], ['   ', 'blank'], ['gw\u0000key', 'control'], ['gw-key\r\nX-Injected: 1', 'control'], ['gw key', 'whitespace'], ['\tgw', 'whitespace']])(
    'refuses the gateway key %j with 400, alone and in a bulk PUT (all or nothing), without echoing it', async (value, mentions) => {
      const one = await put(GATEWAY_KEY, { value });
      expectError(one, 400, VALUE_INVALID, mentions);
      if (value.trim() !== '') expect(one.json().message).not.toContain(JSON.stringify(value));
      const bulk = await app.mgmt.put('/rest/v1/system/configs', { json: { 'rollout.approval.enabled': true, [GATEWAY_KEY]: value } });
      expectError(bulk, 400, VALUE_INVALID, mentions);
      expect((await get(GATEWAY_KEY)).json()).toMatchObject({ value: '', global: true });
      expect((await get('rollout.approval.enabled')).json()).toMatchObject({ value: false, global: true });
    },
  );

  it('refuses a body without value, and a non-object bulk body', async () => {
    expectError(await put('pollingTime', {}), 400, ERR.body, 'body.value: required');
    expectError(await put('pollingTime', [1]), 400, ERR.body);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: [1, 2] }), 400, ERR.body);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: {} }), 400, ERR.body);
  });

  it('writes several keys at once, all or nothing', async () => {
    const res = await app.mgmt.put('/rest/v1/system/configs', { json: { pollingTime: '00:20:00', 'anonymous.download.enabled': true } });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual([ // spec 4.7: the written entries
      expect.objectContaining({ value: '00:20:00', global: false }),
      expect.objectContaining({ value: true, global: false }),
    ]);
    expect((await get('pollingTime')).json()).toMatchObject({ value: '00:20:00', global: false });
    expect((await get('anonymous.download.enabled')).json()).toMatchObject({ value: true, global: false });
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: { pollingTime: '00:30:00', maintenanceWindowPollCount: 'many' } }), 400, VALUE_INVALID);
    expect((await get('pollingTime')).json().value).toBe('00:20:00');
    expect((await get('maintenanceWindowPollCount')).json().global).toBe(true);
    // checked against each other: pollingTime and minPollingTime in one request
    expect((await app.mgmt.put('/rest/v1/system/configs', { json: { minPollingTime: '00:00:05', pollingTime: '00:00:10' } })).status).toBe(200);
    for (const key of ['pollingTime', 'minPollingTime', 'anonymous.download.enabled']) await app.mgmt.delete(`/rest/v1/system/configs/${key}`);
  });

  it('cannot switch multi.assignments.enabled off once on', async () => {
    expect((await put('multi.assignments.enabled', { value: false })).status).toBe(200); // off -> off is fine
    expect((await put('multi.assignments.enabled', { value: true })).status).toBe(200);
    expect((await get('multi.assignments.enabled')).json()).toMatchObject({ value: true, global: false });
    expectError(await put('multi.assignments.enabled', { value: false }), 403, NOT_ALLOWED);
    expectError(await app.mgmt.delete('/rest/v1/system/configs/multi.assignments.enabled'), 403, NOT_ALLOWED);
    expect((await get('multi.assignments.enabled')).json().value).toBe(true);
  });

  it('shows the gateway token key only with READ_GATEWAY_SECURITY_TOKEN', async () => {
    expect((await put(GATEWAY_KEY, { value: 's3cret' })).status).toBe(200);
    const all = (await app.anon.get('/rest/v1/system/configs', configurer)).json();
    expect(all).not.toHaveProperty([GATEWAY_KEY]);
    expect(all).toHaveProperty('pollingTime');
    expectError(await app.anon.get(`/rest/v1/system/configs/${GATEWAY_KEY}`, configurer), 403, ERR.permission);
    expectError(await app.anon.put(`/rest/v1/system/configs/${GATEWAY_KEY}`, { ...configurer, json: { value: 'x' } }), 403, ERR.permission);
    expect((await app.anon.put('/rest/v1/system/configs/rollout.approval.enabled', { ...configurer, json: { value: true } })).status).toBe(200);
    expect((await get(GATEWAY_KEY)).json().value).toBe('s3cret');
  });
});

describe('a gateway key seeded in config.yaml', () => {
  it.each(['', ' ', 'gw\u0000key', 'gw\r\nkey'])('%j stops the start, naming the key', async (value) => {
    const start = startTestServer({ tenants: [{ name: 'SEEDED', users: [], config: { [GATEWAY_KEY]: value } }] });
    await expect(start).rejects.toThrow(`config.yaml: tenants[].config.${GATEWAY_KEY}: must not`);
  });

  it('a key a device can send starts', async () => {
    const server = await startTestServer({ tenants: [{ name: 'SEEDED', users: [], config: { [GATEWAY_KEY]: 'gw-Key_0123456789!' } }] });
    expect(server.port).toBeGreaterThan(0);
  });
});

/** `default.ds.type` (reference §3.14) and hawkBit's standard set types (issue 7 item 11). */
describe.each(STORES)('the default distribution set type on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind);
  });
  const typeId = async (key: string): Promise<number> => {
    const res = (await app.mgmt.get(`/rest/v1/distributionsettypes?q=key==${key}`)).json();
    expect(res.total).toBe(1);
    return res.content[0].id;
  };
  const createSet = (body: Record<string, unknown>) => app.mgmt.post('/rest/v1/distributionsets', { json: [{ version: '1', ...body }] });
  const setDefault = (value: unknown) => app.mgmt.put('/rest/v1/system/configs/default.ds.type', { json: { value } });

  it('seeds os, app and os_app; os_app is the default, listed beside the configuration keys', async () => {
    const app_ = (await app.mgmt.get(`/rest/v1/distributionsettypes/${await typeId('app')}`)).json();
    expect(app_).toMatchObject({ key: 'app', name: 'App(s) only', description: 'Default type with app(s) only.', deleted: false });
    const mandatory = (await app.mgmt.get(`/rest/v1/distributionsettypes/${app_.id}/mandatorymoduletypes`)).json();
    expect(mandatory.map((t: { key: string }) => t.key)).toEqual(['application']);
    expect((await app.mgmt.get(`/rest/v1/distributionsettypes/${app_.id}/optionalmoduletypes`)).json()).toEqual([]);
    const osApp = await typeId('os_app');
    const entry = { value: osApp, global: false, _links: { self: { href: `${app.url}/rest/v1/system/configs/default.ds.type` } } };
    expect((await app.mgmt.get('/rest/v1/system/configs')).json()['default.ds.type']).toEqual(entry);
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json()).toEqual(entry);
  });

  it('gives a set created without type the default, and follows a PUT of another type id', async () => {
    const first = await createSet({ name: 'no-type-1' });
    expect(first.status, first.text).toBe(201);
    expect(first.json()[0]).toMatchObject({ type: 'os_app', typeName: 'OS with app(s)' });
    expect((await setDefault(await typeId('app'))).status).toBe(200);
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json().value).toBe(await typeId('app'));
    const second = await createSet({ name: 'no-type-2' });
    expect(second.json()[0]).toMatchObject({ type: 'app', typeName: 'App(s) only' });
    // a type given still wins
    expect((await createSet({ name: 'typed', type: 'os' })).json()[0].type).toBe('os');
    expect((await setDefault(await typeId('os_app'))).status).toBe(200);
  });

  it('refuses a value that is not a type id (400) or names no type (404), and cannot be deleted (404)', async () => {
    const before = (await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json().value;
    expectError(await setDefault(String(before)), 400, VALUE_INVALID, 'default.ds.type');
    expectError(await setDefault(true), 400, VALUE_INVALID);
    expectError(await setDefault(999_999), 404, ERR.notFound, '999999');
    expectError(await app.mgmt.delete('/rest/v1/system/configs/default.ds.type'), 404, ERR.notFound, 'default.ds.type');
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json().value).toBe(before);
  });

  it('is handled first in a bulk PUT, and the whole bulk is one change', async () => {
    const os = await typeId('os');
    const osApp = await typeId('os_app');
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: { pollingTime: '00:10:00', 'default.ds.type': 999_999 } }), 404, ERR.notFound);
    expect((await app.mgmt.get('/rest/v1/system/configs/pollingTime')).json().global).toBe(true);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: { 'default.ds.type': os, pollingTime: 'soon' } }), 400, VALUE_INVALID);
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json().value).toBe(osApp);
    const ok = await app.mgmt.put('/rest/v1/system/configs', { json: { 'default.ds.type': os, pollingTime: '00:10:00' } });
    expect(ok.status, ok.text).toBe(200);
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json().value).toBe(os);
    expect((await app.mgmt.get('/rest/v1/system/configs/pollingTime')).json().value).toBe('00:10:00');
    expect((await app.mgmt.put('/rest/v1/system/configs', { json: { 'default.ds.type': osApp } })).status).toBe(200);
  });

  it('keeps the default type from being removed while it is the default', async () => {
    const created = await app.mgmt.post('/rest/v1/distributionsettypes', { json: [{ key: 'spare', name: 'Spare' }] });
    const spare = created.json()[0].id;
    expect((await setDefault(spare)).status).toBe(200);
    expectError(await app.mgmt.delete(`/rest/v1/distributionsettypes/${spare}`), 400, 'hawkbit.server.error.repo.constraintViolation', 'default.ds.type');
    expect((await setDefault(await typeId('os_app'))).status).toBe(200);
    expect((await app.mgmt.delete(`/rest/v1/distributionsettypes/${spare}`)).status).toBe(204);
  });

  it('answers 400 type.undefined for a set without type once the default type record is gone (data of older servers)', async () => {
    const id = await typeId('os_app');
    const stored = await app.store.get(app.tenant, 'dstype', id);
    expect((await app.store.commit(app.tenant, { writes: [{ kind: 'dstype', id, expect: stored!.version, before: stored!.value, after: null }] })).ok).toBe(true);
    expect((await app.mgmt.get('/rest/v1/system/configs/default.ds.type')).json()).toMatchObject({ value: id });
    expectError(await createSet({ name: 'orphan' }), 400, 'hawkbit.server.error.distributionset.type.undefined', 'default.ds.type');
  });
});

describe.each(STORES)('userinfo on the %s store', (kind) => {
  it('names the tenant, the user and the permissions', async () => {
    const app = await startApp(kind, {}, [{ username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET', 'READ_REPOSITORY'] }]);
    const res = await app.anon.get('/rest/v1/userinfo', { auth: 'reader:admin' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ tenant: app.tenant, username: 'reader', permissions: ['READ_REPOSITORY', 'READ_TARGET'] });
    const admin = (await app.mgmt.get('/rest/v1/userinfo')).json();
    expect(admin.permissions).toContain('ALL');
    expect(admin.permissions).toContain('READ_TARGET_SECURITY_TOKEN');
    expect((await app.anon.get('/rest/v1/userinfo')).status).toBe(401);
  });
});
