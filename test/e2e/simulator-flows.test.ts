/**
 * The simulator's less common device paths against the real server: confirming (and denying) actions
 * that wait for confirmation, reporting failures, and accepting a cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet, type FleetOptions } from '../../simulator/fleet.js';
import { startApp, type App } from '../helpers/app.js';
import { seedDistributionSet, type SeededDs } from '../helpers/seed.js';

const GATEWAY = 'sim-flows-gateway';

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('simulator device flows', () => {
  let app: App;
  let seeded: SeededDs;
  const fleetOf = (prefix: string, count: number, behaviour: FleetOptions['behaviour'] = {}): ReturnType<typeof startFleet> => startFleet({
    server: app.url, tenant: app.tenant, count, prefix, auth: { mode: 'gateway', token: GATEWAY }, durationMs: 10_000, rampMs: 50,
    behaviour: { minSleepMs: 30, maxSleepMs: 150, ...behaviour },
  });
  const setConfig = async (key: string, value: unknown): Promise<void> => {
    expect((await app.mgmt.put(`/rest/v1/system/configs/${key}`, { json: { value } })).status).toBe(200);
  };
  const register = async (prefix: string, count: number): Promise<readonly string[]> => {
    const f = fleetOf(prefix, count);
    await waitFor(`${prefix} devices to register`, () => f.stats.polls >= count);
    await f.stop();
    return f.controllerIds;
  };
  const assign = async (ids: readonly string[]): Promise<void> => {
    const r = await app.mgmt.post(`/rest/v1/distributionsets/${seeded.ds.id}/assignedTargets`, { json: ids.map((id) => ({ id })) });
    expect(r.status).toBe(200);
  };
  const actionOf = async (id: string): Promise<{ id: number; detailStatus: string }> => {
    const r = await app.mgmt.get(`/rest/v1/targets/${id}/actions`);
    expect(r.status).toBe(200);
    return r.json().content[0];
  };

  beforeAll(async () => {
    app = await startApp('memory');
    seeded = await seedDistributionSet(app);
    await setConfig('authentication.gatewaytoken.key', GATEWAY);
    await setConfig('authentication.gatewaytoken.enabled', true);
  });
  afterAll(async () => { await app?.server.close(); });

  it('confirms waiting actions and reports failures when told to fail', async () => {
    await setConfig('user.confirmation.flow.enabled', true);
    const ids = await register('sim-fail-', 2);
    await assign(ids);
    expect((await actionOf(ids[0]!)).detailStatus).toBe('wait_for_confirmation');
    const f = fleetOf('sim-fail-', 2, { failureRate: 1 });
    await waitFor('failed deployments', () => f.stats.deploymentsFailed >= 2);
    const stats = await f.stop();
    expect(stats.confirmations).toBe(2);
    expect(stats.deploymentsSucceeded).toBe(0);
    expect(stats.artifactsDownloaded).toBe(2);
    for (const id of ids) {
      expect((await app.mgmt.get(`/rest/v1/targets/${id}`)).json().updateStatus).toBe('error');
      expect((await actionOf(id)).detailStatus).toBe('error');
    }
  });

  it('denies a waiting action and leaves it waiting', async () => {
    await setConfig('user.confirmation.flow.enabled', true);
    const ids = await register('sim-deny-', 1);
    await assign(ids);
    const f = fleetOf('sim-deny-', 1, { denyRate: 1 });
    await waitFor('a denial', () => f.stats.denials >= 1);
    await sleep(300);
    const stats = await f.stop();
    expect(stats.denials).toBe(1); // denied once, then left alone
    expect(stats.deploymentsStarted).toBe(0);
    expect((await actionOf(ids[0]!)).detailStatus).toBe('wait_for_confirmation');
  });

  it('accepts a cancellation', async () => {
    await setConfig('user.confirmation.flow.enabled', false);
    const ids = await register('sim-cancel-', 1);
    await assign(ids);
    const action = await actionOf(ids[0]!);
    expect((await app.mgmt.delete(`/rest/v1/targets/${ids[0]}/actions/${action.id}`)).status).toBe(204);
    const f = fleetOf('sim-cancel-', 1);
    await waitFor('the cancellation', () => f.stats.cancelsAccepted >= 1);
    const stats = await f.stop();
    expect(stats.deploymentsStarted).toBe(0);
    expect(stats.errorsByStatus).toEqual({});
    expect((await actionOf(ids[0]!)).detailStatus).toBe('canceled');
  });
});
