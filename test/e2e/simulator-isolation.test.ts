/**
 * Simulator runs are isolated (issue 26): each run has an id its devices report, so a run's rollout and
 * counts take in its own targets only, never an earlier run's under the same id pattern; "in_sync"
 * means with the run's own release; the tenant configuration a run writes is put back afterwards
 * unless the scenario keeps it.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario, type RunResult } from '../../simulator/run.js';
import { startApp, type App } from '../helpers/app.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

const scenario = (steps: object[], expect: string[], extra: object = {}) => ({
  name: 'iso', durationSeconds: 60, timeScale: 0.002, rampSeconds: 0.2,
  tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
  fleet: { auth: { mode: 'target', tokenPrefix: 'iso' }, groups: [{ name: 'iso', count: 6 }] },
  steps, expect, ...extra,
});

describe('simulator runs are isolated', () => {
  let app: App;
  const run = async (s: object, devices: number): Promise<RunResult & { out: string; err: string }> => {
    const out = new Sink();
    const err = new Sink();
    const r = await runScenario(s, { overrides: { url: app.url, tenant: app.tenant, admin: 'admin:admin', devices }, out, err, plainEveryMs: 60_000 });
    return { ...r, out: out.text, err: err.text };
  };
  const config = async (key: string) => (await app.mgmt.get(`/rest/v1/system/configs/${key}`)).json<{ value: unknown; global: boolean }>();
  beforeAll(async () => { app = await startApp('redis'); });
  afterAll(async () => { await app?.server.close(); });

  it("takes only the run's own targets into its rollout, and puts the tenant configuration back", async () => {
    expect(await config('pollingTime')).toMatchObject({ global: true });
    const update = [{ createDistributionSet: { name: 'iso-release' } }, { createRollout: { body: { amountGroups: 1 } } }];
    const first = await run(scenario(update, ['rollout finished', 'all devices in_sync']), 6);
    expect(first.exitCode, first.err).toBe(0);
    expect(first.report!.runId).toMatch(/^[0-9a-f]{8}$/);
    // the run's configuration is gone again: the tenant is back on its defaults
    expect(await config('pollingTime')).toMatchObject({ global: true });
    expect(first.out).toContain('tenant configuration restored: authentication.targettoken.enabled, pollingTime, minPollingTime');

    // 3 devices of the same pattern: the 6 targets of the first run exist, but only this run's 3 join
    const second = await run(scenario(update, ['rollout finished', 'all devices in_sync'], { keepTenantConfig: true }), 3);
    expect(second.exitCode, second.err).toBe(0);
    expect(second.report!.runId).not.toBe(first.report!.runId);
    const rollout = (await app.mgmt.get(`/rest/v1/rollouts/${second.report!.rollout!.id}`)).json();
    expect(rollout.totalTargets).toBe(3);
    expect(rollout.name).toBe(`iso-${second.report!.runId}`);
    // what satisfied each expectation: the state with its time, the count of targets
    expect(second.report!.expectations.map((e) => e.seen)).toEqual([
      expect.stringMatching(/^rollout finished \d+\.\d s after its start$/), '0 of 3 targets not in_sync',
    ]);
    expect(await config('pollingTime')).toMatchObject({ global: false, value: '00:05:00' }); // kept
  }, 150_000);

  it('judges "in_sync" by the run\'s own release, not by what the devices had', async () => {
    // the devices are in sync with an earlier run's set; this run makes a set and never assigns it
    const r = await run(scenario([{ createDistributionSet: { name: 'iso-unused' } }], ['all devices in_sync'], { durationSeconds: 4 }), 3);
    expect(r.exitCode).toBe(1);
    expect(r.report!.expectations[0]).toMatchObject({ passed: false, seen: '3 of 3 targets not in_sync' });
  }, 60_000);
});
