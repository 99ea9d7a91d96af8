/**
 * The simulator against the real server: every shipped scenario at a small size through the library
 * API (`runScenario`), each authentication mode, the behaviour mixes (failures, download-only, faults
 * with resumed Range downloads) and the server state the runs leave, the rollout scenarios included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { loadScenario } from '../../simulator/scenario.js';
import { runScenario, type RunResult } from '../../simulator/run.js';
import { startApp, type App } from '../helpers/app.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

async function run(app: App, scenario: object, devices?: number): Promise<RunResult & { out: string; err: string }> {
  const out = new Sink();
  const err = new Sink();
  const overrides = { url: app.url, tenant: app.tenant, admin: 'admin:admin', devices };
  const r = await runScenario(scenario, { overrides, out, err, plainEveryMs: 60_000 });
  return { ...r, out: out.text, err: err.text };
}

const shipped = (name: string): Record<string, unknown> => loadScenario(`simulator/scenarios/${name}.yaml`) as Record<string, unknown>;

describe('simulator scenarios against the server', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp('memory', { server: { trustedProxies: ['127.0.0.1'] }, ddi: { authentication: { anonymous: false } } });
  });
  afterAll(async () => { await app?.server.close(); });

  it('smoke: two groups install an assigned set; every target ends in sync with its attributes', async () => {
    const r = await run(app, shipped('smoke'));
    expect(r.err).toBe('');
    expect(r.exitCode).toBe(0);
    const rep = r.report!;
    expect(rep.devices).toBe(20);
    expect(rep.devicesByState.done).toBe(20);
    expect(rep.counters.successes).toBe(20);
    expect(rep.errorsByStatus).toEqual({});
    expect(rep.requests.byKind.download!.count).toBeGreaterThan(20); // group b downloads in 16 KiB Range pieces
    expect(rep.downloads.bytes).toBe(20 * 2 * 50_000);
    expect(rep.expectations.every((e) => e.passed)).toBe(true);
    expect(r.out).toMatch(/request\s+count\s+errors\s+p50 ms\s+p95 ms\s+p99 ms/);
    expect(r.out).toMatch(/ok {3}all devices in_sync/);
    const t = (await app.mgmt.get('/rest/v1/targets/smoke-b-0003')).json();
    expect(t.updateStatus).toBe('in_sync');
    const attrs = (await app.mgmt.get('/rest/v1/targets/smoke-a-000004/attributes')).json();
    expect(attrs.hw_revision).toBe('sim-1');
    expect(['eu', 'us', 'apac']).toContain(attrs.region);
  }, 90_000);

  it('confirmation: confirmers install, deniers stay waiting, auto-confirm is switched on', async () => {
    const r = await run(app, shipped('confirmation'), 18);
    expect(r.err).toBe('');
    expect(r.exitCode).toBe(0);
    const c = r.report!.counters;
    expect(c.denials).toBeGreaterThanOrEqual(3);
    expect(c.confirmations).toBeGreaterThanOrEqual(9);
    const denier = (await app.mgmt.get('/rest/v1/targets/conf-no-000000/actions')).json().content[0];
    expect(denier.detailStatus).toBe('wait_for_confirmation');
    expect((await app.mgmt.put('/rest/v1/system/configs/user.confirmation.flow.enabled', { json: { value: false } })).status).toBe(200);
  }, 90_000);

  it('target tokens provisioned in bulk, failures, download-only and dropped connections resumed', async () => {
    const scenario = {
      name: 'mixes', durationSeconds: 60, timeScale: 0.002, rampSeconds: 0.5,
      tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
      fleet: {
        auth: { mode: 'target', tokenPrefix: 'mix' },
        groups: [
          { name: 'mix-fail', count: 4, behaviour: { outcome: { failure: 1 } } },
          {
            name: 'mix-faults', count: 4,
            behaviour: { download: { mode: 'range', pieceBytes: 8192 }, faults: { drop: 0.3, delay: 0.2, delayMs: 20 } },
          },
          { name: 'mix-whole', count: 4, behaviour: { faults: { drop: 0.2 } } },
        ],
      },
      steps: [{ createDistributionSet: { name: 'mix-release', artifactBytes: 40_000 } }, { assign: {} }],
      expect: [
        'at least 12 updates', 'all devices of mix-faults in_sync', 'all devices of mix-whole in_sync',
        'all devices of mix-fail error', 'no errors',
      ],
    };
    const r = await run(app, scenario);
    expect(r.err).toBe('');
    expect(r.exitCode).toBe(0);
    const rep = r.report!;
    expect(rep.counters).toMatchObject({ successes: 8, failures: 4 });
    expect(rep.devicesByState).toMatchObject({ done: 8, failed: 4 });
    expect(rep.faults.dropped).toBeGreaterThan(0);
    expect(rep.downloads.resumes).toBeGreaterThan(0);
    expect(rep.downloads.verifyFailures).toBe(0);
    // the targets were created over the Management API with their tokens before any device polled
    expect((await app.mgmt.get('/rest/v1/targets?q=controllerId==mix-*&limit=1')).json().total).toBe(12);

    const again = await run(app, {
      ...scenario, name: 'download-only',
      fleet: { auth: scenario.fleet.auth, groups: [{ name: 'mix-whole', count: 4 }] },
      steps: [{ createDistributionSet: { name: 'dl-only' } }, { assign: { type: 'downloadonly' } }],
      expect: ['at least 4 updates', 'all devices in_sync'],
    });
    expect(again.exitCode).toBe(0);
    const action = (await app.mgmt.get('/rest/v1/targets/mix-whole-000000/actions?sort=id:DESC')).json().content[0];
    expect(action).toMatchObject({ forceType: 'downloadonly', detailStatus: 'downloaded' });
  }, 120_000);

  it('proxy certificate headers and a failed expectation: exit 1 naming expected and seen', async () => {
    const r = await run(app, {
      name: 'cert', durationSeconds: 3, timeScale: 0.002, tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
      fleet: { auth: { mode: 'certificate', issuerHash: 'abc123' }, groups: [{ name: 'cert', count: 3 }] },
      expect: ['all devices registered', 'at least 1 updates'],
    });
    expect(r.exitCode).toBe(1);
    expect(r.report!.errorsByStatus).toEqual({});
    expect(r.report!.expectations[0]).toMatchObject({ passed: true });
    expect(r.err).toMatch(/expectation failed: at least 1 updates: expected updates >= 1, seen updates = 0/);
    expect((await app.mgmt.get('/rest/v1/targets?q=controllerId==cert-*')).json().total).toBe(3);
  }, 30_000);

  it('anonymous devices on a server that allows them', async () => {
    const open = await startApp('memory', { ddi: { authentication: { anonymous: true } } });
    try {
      const r = await run(open, {
        name: 'anon', durationSeconds: 30, timeScale: 0.002, tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
        fleet: { auth: { mode: 'anonymous' }, groups: [{ name: 'anon', count: 3, attributes: { model: ['x1', 'x2'] } }] },
        steps: [{ createDistributionSet: { name: 'anon-release' } }, { assign: {} }],
        expect: ['all devices in_sync', 'no errors'],
      });
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.devicesByState.done).toBe(3);
    } finally {
      await open.server.close();
    }
  }, 60_000);

  describe('rollouts', () => {
    it('rollout-10k at a small size: five groups, one rollout, every device in sync', async () => {
      const r = await run(app, shipped('rollout-10k'), 100);
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.rollout).toMatchObject({ status: 'finished' });
      expect(r.report!.devicesByState.done).toBe(100);
    }, 240_000);

    it('error-threshold: the failure-heavy group pauses the rollout; resumed, it finishes', async () => {
      const r = await run(app, shipped('error-threshold'));
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.rollout).toMatchObject({ status: 'finished' });
      expect(r.report!.counters.failures).toBeGreaterThan(0);
      expect(r.report!.expectations.map((e) => e.passed)).toEqual([true, true, true, true, true]);
      const groups = (await app.mgmt.get(`/rest/v1/rollouts/${r.report!.rollout!.id}/deploygroups`)).json().content;
      expect(groups.map((g: { status: string }) => g.status)).toEqual(['error', 'finished']);
    }, 200_000);

    it('cancel: a rollout stopped mid-way, devices accept or reject the cancel', async () => {
      const r = await run(app, shipped('cancel'), 20);
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.counters.cancelsAccepted).toBeGreaterThan(0);
    }, 200_000);

    it('retry-and-timeout: failures retried until they succeed, silent devices closed as timeouts; the rollout finishes', async () => {
      const r = await run(app, shipped('retry-and-timeout'));
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.expectations.map((e) => e.passed)).toEqual([true, true, true, true]);
      const id = r.report!.rollout!.id;
      const rollout = (await app.mgmt.get(`/rest/v1/rollouts/${id}`)).json();
      // only the two silent devices count as errors: every failure was retried
      expect(rollout.totalTargetsPerStatus).toMatchObject({ finished: 20, error: 2, running: 0 });
      const silent = (await app.mgmt.get('/rest/v1/targets/rt-silent-000000/actions')).json().content[0];
      const history = (await app.mgmt.get(`/rest/v1/targets/rt-silent-000000/actions/${silent.id}/status`)).json().content;
      expect(JSON.stringify(history)).toContain('Action timed out');
    }, 200_000);

    it('abort-and-rollback: ramped, aborted past its error share, the failed, fallen-back and canceled targets rolled back', async () => {
      const r = await run(app, shipped('abort-and-rollback'));
      expect(r.err).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.report!.expectations.map((e) => e.passed)).toEqual([true, true, true, true]);
      const id = r.report!.rollout!.id;
      const rollout = (await app.mgmt.get(`/rest/v1/rollouts/${id}`)).json();
      expect(rollout.stopReason).toMatchObject({ kind: 'abort', observedPercentage: 37.5 });
      // the 16 answering devices are final: 4 failures and 2 fallbacks are errors; the silent one was canceled by the abort
      expect(rollout.totalTargetsPerStatus).toMatchObject({ finished: 10, error: 6 });
      const actions = (await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${id}`)}&limit=100`)).json().content;
      expect(actions.filter((a: { rollback?: boolean }) => a.rollback === true)).toHaveLength(7);
      const fell = (await app.mgmt.get('/rest/v1/targets/ar-fallback-000000/actions?sort=id:ASC')).json().content[0];
      const history = (await app.mgmt.get(`/rest/v1/targets/ar-fallback-000000/actions/${fell.id}/status`)).json().content;
      expect(JSON.stringify(history)).toContain('Install not verified');
    }, 200_000);
  });
});
