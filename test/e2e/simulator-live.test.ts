/**
 * The live view on a terminal (issue 26): a bar per device state and, once the run has a rollout, a
 * bar per deploy group with the group's finished / error / running targets as the Management API
 * counts them (deploy groups read with representation=full).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../simulator/run.js';
import { LOCAL_STORES, startApp, type App } from '../helpers/app.js';

class Terminal extends Writable {
  readonly isTTY = true;
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

describe.each(LOCAL_STORES)('simulator live view on a terminal (%s)', (kind) => {
  let app: App;
  beforeAll(async () => { app = await startApp(kind); });
  afterAll(async () => { await app?.server.close(); });

  it('draws the device states and the rollout groups as bars, redrawn in place', async () => {
    const out = new Terminal();
    const err = new Terminal();
    const r = await runScenario({
      name: 'live', durationSeconds: 60, timeScale: 0.002, rampSeconds: 0.2,
      tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
      fleet: { auth: { mode: 'target', tokenPrefix: 'live' }, groups: [{ name: 'live', count: 4 }] },
      // the sleep after the rollout finished spans at least one redraw (every 500 ms) of the final counts
      steps: [{ createDistributionSet: {} }, { createRollout: { body: { amountGroups: 2 } } }, { waitRollout: { status: 'finished' } }, { sleep: 1.2 }],
      expect: ['rollout finished', 'all devices in_sync'],
    }, { overrides: { url: app.url, tenant: app.tenant, admin: 'admin:admin' }, out, err });
    expect(r.exitCode, err.text).toBe(0);
    const text = out.text;
    expect(text).toContain('\x1b[J'); // redrawn in place
    expect(text).toMatch(new RegExp(`\\n {2}done {9}${'█'.repeat(30)} {2}4\\n`));
    expect(text).toMatch(/rollout #\d+ finished .*\(█ finished ▓ error ▒ running\)/);
    // two groups of 2 targets, both finished
    const groups = [...text.matchAll(/^ {4}(\S+) +(\S{30}) {2}finished 2 {2}error 0 {2}running 0 {2}of 2 {2}\(finished\)$/gm)];
    expect(new Set(groups.map((m) => m[1])).size).toBe(2);
    expect(groups.every((m) => m[2] === '█'.repeat(30))).toBe(true);
  }, 90_000);
});
