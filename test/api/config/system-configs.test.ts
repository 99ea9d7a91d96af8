import { beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_KEY_NAMES } from '../../../src/domain/tenant-config.js';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ADMIN_HASH } from '../../helpers/server.js';
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
    expect(Object.keys(all).sort()).toEqual([...CONFIG_KEY_NAMES].sort());
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
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
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

  it('refuses a body without value, and a non-object bulk body', async () => {
    expectError(await put('pollingTime', {}), 400, ERR.body, 'body.value: required');
    expectError(await put('pollingTime', [1]), 400, ERR.body);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: [1, 2] }), 400, ERR.body);
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: {} }), 400, ERR.body);
  });

  it('writes several keys at once, all or nothing', async () => {
    const res = await app.mgmt.put('/rest/v1/system/configs', { json: { pollingTime: '00:20:00', 'anonymous.download.enabled': true } });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect((await get('pollingTime')).json()).toMatchObject({ value: '00:20:00', global: false });
    expect((await get('anonymous.download.enabled')).json()).toMatchObject({ value: true, global: false });
    expectError(await app.mgmt.put('/rest/v1/system/configs', { json: { pollingTime: '00:30:00', maintenanceWindowPollCount: 'many' } }), 400, VALUE_INVALID);
    expect((await get('pollingTime')).json().value).toBe('00:20:00');
    expect((await get('maintenanceWindowPollCount')).json().global).toBe(true);
    // checked against each other: pollingTime and minPollingTime in one request
    expect((await app.mgmt.put('/rest/v1/system/configs', { json: { minPollingTime: '00:00:05', pollingTime: '00:00:10' } })).status).toBe(204);
    for (const key of ['pollingTime', 'minPollingTime', 'anonymous.download.enabled']) await app.mgmt.delete(`/rest/v1/system/configs/${key}`);
  });

  it('cannot switch multi.assignments.enabled off once on', async () => {
    expect((await put('multi.assignments.enabled', { value: false })).status).toBe(204); // off -> off is fine
    expect((await put('multi.assignments.enabled', { value: true })).status).toBe(204);
    expect((await get('multi.assignments.enabled')).json()).toMatchObject({ value: true, global: false });
    expectError(await put('multi.assignments.enabled', { value: false }), 403, NOT_ALLOWED);
    expectError(await app.mgmt.delete('/rest/v1/system/configs/multi.assignments.enabled'), 403, NOT_ALLOWED);
    expect((await get('multi.assignments.enabled')).json().value).toBe(true);
  });

  it('shows the gateway token key only with READ_GATEWAY_SECURITY_TOKEN', async () => {
    expect((await put(GATEWAY_KEY, { value: 's3cret' })).status).toBe(204);
    const all = (await app.anon.get('/rest/v1/system/configs', configurer)).json();
    expect(all).not.toHaveProperty([GATEWAY_KEY]);
    expect(all).toHaveProperty('pollingTime');
    expectError(await app.anon.get(`/rest/v1/system/configs/${GATEWAY_KEY}`, configurer), 403, ERR.permission);
    expectError(await app.anon.put(`/rest/v1/system/configs/${GATEWAY_KEY}`, { ...configurer, json: { value: 'x' } }), 403, ERR.permission);
    expect((await app.anon.put('/rest/v1/system/configs/rollout.approval.enabled', { ...configurer, json: { value: true } })).status).toBe(204);
    expect((await get(GATEWAY_KEY)).json().value).toBe('s3cret');
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
