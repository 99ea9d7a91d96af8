/**
 * The device simulator against the real server: a small gateway-token fleet registers by polling, gets
 * a distribution set assigned through the Management API, downloads and verifies its artifacts and
 * reports success; the server then shows every target in sync with the set installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet, type FleetHandle } from '../../simulator/fleet.js';
import { startApp, type App } from '../helpers/app.js';
import { seedDistributionSet } from '../helpers/seed.js';

const GATEWAY = 'sim-e2e-gateway-token';

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('simulator fleet', () => {
  let app: App;
  let fleet: FleetHandle | undefined;
  beforeAll(async () => { app = await startApp('memory'); });
  afterAll(async () => { await fleet?.stop(); await app?.server.close(); });

  it('registers, installs an assigned distribution set on every device and counts it', async () => {
    const seeded = await seedDistributionSet(app, { artifacts: [{ filename: 'rootfs.img' }, { filename: 'kernel.bin' }] });
    for (const [key, value] of [['authentication.gatewaytoken.key', GATEWAY], ['authentication.gatewaytoken.enabled', true]] as const) {
      expect((await app.mgmt.put(`/rest/v1/system/configs/${key}`, { json: { value } })).status).toBe(200);
    }

    fleet = startFleet({
      server: app.url, tenant: app.tenant, count: 5, prefix: 'sim-e2e-', auth: { mode: 'gateway', token: GATEWAY },
      durationMs: 18_000, concurrency: 8, rampMs: 200,
      behaviour: { timeScale: 0.001, minSleepMs: 30, maxSleepMs: 200, attributes: { hw: 'e2e' }, rangeChunkBytes: 20_000 },
    });
    const running = fleet;
    await waitFor('devices to register', async () => {
      const r = await app.mgmt.get('/rest/v1/targets?q=controllerId==sim-e2e-*&limit=50');
      return r.status === 200 && r.json().total === 5;
    });

    const assign = await app.mgmt.post(`/rest/v1/distributionsets/${seeded.ds.id}/assignedTargets`, { json: running.controllerIds.map((id) => ({ id })) });
    expect(assign.status).toBe(200);
    expect(assign.json().assigned).toBe(5);

    await waitFor('every deployment to finish', () => running.stats.deploymentsSucceeded + running.stats.deploymentsFailed >= 5);
    const stats = await running.stop();

    const total = seeded.artifacts.reduce((n, a) => n + a.content.length, 0);
    expect(stats.deploymentsStarted).toBe(5);
    expect(stats.deploymentsSucceeded).toBe(5);
    expect(stats.deploymentsFailed).toBe(0);
    expect(stats.verifyFailures).toBe(0);
    expect(stats.artifactsDownloaded).toBe(10);
    expect(stats.bytesDownloaded).toBe(5 * total);
    expect(stats.configDataSent).toBeGreaterThanOrEqual(5);
    expect(stats.polls).toBeGreaterThan(5);
    expect(stats.errorsByStatus).toEqual({});

    for (const id of running.controllerIds) {
      const target = (await app.mgmt.get(`/rest/v1/targets/${id}`)).json();
      expect(target.updateStatus, id).toBe('in_sync');
      const installed = await app.mgmt.get(`/rest/v1/targets/${id}/installedDS`);
      expect(installed.status).toBe(200);
      expect(installed.json().id).toBe(seeded.ds.id);
      const attrs = (await app.mgmt.get(`/rest/v1/targets/${id}/attributes`)).json();
      expect(attrs).toMatchObject({ hw: 'e2e', controllerId: id });
    }
  }, 40_000);

  it('counts rejected credentials as errors instead of crashing', async () => {
    const bad = startFleet({
      server: app.url, tenant: app.tenant, count: 2, prefix: 'sim-bad-', auth: { mode: 'gateway', token: 'wrong' },
      durationMs: 400, behaviour: { minSleepMs: 50, maxSleepMs: 100 },
    });
    const stats = await bad.done;
    expect(stats.polls).toBeGreaterThanOrEqual(2);
    expect(stats.errorsByStatus['401']).toBe(stats.polls);
    expect(stats.deploymentsStarted).toBe(0);
    const r = await app.mgmt.get('/rest/v1/targets?q=controllerId==sim-bad-*');
    expect(r.json().total).toBe(0);
  });
});
