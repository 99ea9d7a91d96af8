/**
 * `--tenant-per-run` (issue 26 item 2) against a real server on Redis: the run creates a tenant named
 * with its run id through the system API, its devices, set and rollout live there, and the tenant is
 * deleted at the end (kept with keepTenant); an admin without SYSTEM_ADMIN is told so (exit 2).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario, type RunResult } from '../../simulator/run.js';
import { startApp, type App } from '../helpers/app.js';
import { ADMIN_HASH, http } from '../helpers/server.js';
import { withAuth } from '../helpers/app.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

const scenario = (extra: object = {}) => ({
  name: 'own', durationSeconds: 60, timeScale: 0.002, rampSeconds: 0.2, tenantPerRun: true,
  tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
  fleet: { auth: { mode: 'target', tokenPrefix: 'own' }, groups: [{ name: 'own', count: 4 }] },
  steps: [{ createDistributionSet: { name: 'own-release' } }, { createRollout: { body: { amountGroups: 2 } } }],
  expect: ['rollout finished', 'all devices in_sync'],
  ...extra,
});

describe('simulator --tenant-per-run', () => {
  let app: App;
  const run = async (s: object, admin = 'admin:admin'): Promise<RunResult & { out: string; err: string }> => {
    const out = new Sink();
    const err = new Sink();
    const r = await runScenario(s, { overrides: { url: app.url, tenant: app.tenant, admin }, out, err, plainEveryMs: 60_000 });
    return { ...r, out: out.text, err: err.text };
  };
  const tenantOf = (name: string) => app.mgmt.get(`/rest/v1/system/admin/tenants/${name}`);
  beforeAll(async () => {
    app = await startApp('redis', {}, [{ username: 'plain', password: ADMIN_HASH, permissions: ['READ_TARGET'] }]);
  });
  afterAll(async () => { await app?.server.close(); });

  it('runs the scenario in a tenant named with its run id and deletes it at the end', async () => {
    const r = await run(scenario());
    expect(r.exitCode, r.err).toBe(0);
    const name = `SIM-${r.report!.runId.toUpperCase()}`;
    expect(r.report!.tenant).toBe(name);
    expect(r.report!.rollout).toMatchObject({ status: 'finished' });
    expect(r.out).toContain(`tenant ${name} created for this run`);
    expect(r.out).toContain(`tenant ${name} deleted`);
    expect((await tenantOf(name)).status).toBe(404);
    // nothing of the run reached the configured tenant
    expect((await app.mgmt.get('/rest/v1/targets?q=controllerId==own-*')).json().total).toBe(0);
    expect((await app.mgmt.get('/rest/v1/system/configs/pollingTime')).json()).toMatchObject({ global: true });
  }, 150_000);

  it('keeps the tenant with keepTenant, and the printed credentials reach its rollout', async () => {
    const r = await run(scenario({ keepTenant: true, expect: ['rollout finished'] }));
    expect(r.exitCode, r.err).toBe(0);
    const name = `SIM-${r.report!.runId.toUpperCase()}`;
    expect((await tenantOf(name)).json()).toMatchObject({ name, source: 'runtime', createdBy: 'admin', users: [{ username: 'sim' }] });
    const credentials = new RegExp(`tenant ${name} kept; its Management credentials: (${name}\\\\sim):(\\S+)`).exec(r.out);
    expect(credentials, r.out).not.toBeNull();
    const own = withAuth(http(app.url), [credentials![1]!, credentials![2]!]);
    const rollouts = (await own.get('/rest/v1/rollouts')).json();
    expect(rollouts.content.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([[`own-${r.report!.runId}`, 'finished']]);
    expect((await app.mgmt.delete(`/rest/v1/system/admin/tenants/${name}`)).status).toBe(200);
    expect((await own.get('/rest/v1/rollouts')).status).toBe(401);
  }, 150_000);

  it('says why when the admin may not create tenants (exit 2), and runs nothing', async () => {
    const r = await run(scenario(), 'plain:admin');
    expect(r.exitCode).toBe(2);
    expect(r.err).toContain('plain may not create tenants');
    expect(r.err).toContain('SYSTEM_ADMIN');
    expect(r.report).toBeUndefined();
  }, 60_000);
});
