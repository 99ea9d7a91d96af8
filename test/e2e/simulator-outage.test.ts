/**
 * The simulator while its server goes away (issue 26): a scenario whose `run` step kills a real server
 * process (kill -9, Redis store) in the middle of a rollout and starts it again. The run must go on
 * through the outage, judge the recovery ("within N s after the server is back", "no update lost") and
 * end with its report; a server that never comes back ends the run with a report and exit code 1, and
 * no stack trace.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../simulator/run.js';
import { built, CLI } from '../helpers/cli.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis.js';

const ROOT = resolve(import.meta.dirname, '../..');

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

describe.skipIf(!built)('the simulator through a server outage', () => {
  let redis: RedisServer;
  let dir: string;
  let url: string;
  const pidFile = (): string => join(dir, 'server.pid');
  const serverPid = (): number => Number(readFileSync(pidFile(), 'utf8').trim());

  /** Starts the server in the background (as a restart command would) and waits until it answers. */
  const start = async (): Promise<void> => {
    execFileSync('sh', [join(dir, 'start.sh')]);
    for (let i = 0; i < 200; i++) {
      const ok = await fetch(`${url}/rest/v1/userinfo`, { headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } })
        .then((r) => r.status === 200, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the server did not start: ${readFileSync(join(dir, 'server.log'), 'utf8')}`);
  };

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'sim-outage-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = `PEREGRINE_PORT=${port} PEREGRINE_STORE=redis PEREGRINE_REDIS_URL=redis://127.0.0.1:${redis.port} `
      + `PEREGRINE_DATA_DIR=${dir}/data PEREGRINE_LOG_LEVEL=warn`;
    writeFileSync(join(dir, 'start.sh'), `cd ${ROOT}\n${env} nohup ${process.execPath} ${CLI} serve --config config.yaml >> ${dir}/server.log 2>&1 &\necho $! > ${pidFile()}\n`);
    // kill -9: nothing is flushed or closed in order; the restart needs no cooperation from the old process
    writeFileSync(join(dir, 'kill.sh'), `pid=$(cat ${pidFile()})\nkill -9 $pid\nwhile kill -0 $pid 2>/dev/null; do sleep 0.05; done\n`);
    writeFileSync(join(dir, 'restart.sh'), `sh ${dir}/kill.sh\nsleep 1.5\nsh ${dir}/start.sh\n`);
    await start();
  }, 60_000);

  afterAll(async () => {
    if (dir !== undefined && existsSync(pidFile())) {
      try { process.kill(serverPid(), 'SIGKILL'); } catch { /* gone */ }
    }
    await redis?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const scenario = (name: string, run: string, timeoutSeconds: number, expect: string[]) => ({
    name, durationSeconds: 120, timeScale: 0.002, rampSeconds: 0.5, connectAttempts: 3,
    tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' },
    fleet: { auth: { mode: 'target', tokenPrefix: name }, groups: [{ name, count: 30, behaviour: { installSeconds: 500 } }] },
    steps: [
      { createDistributionSet: { name: `${name}-release` } },
      { createRollout: { body: { amountGroups: 3, successCondition: { condition: 'THRESHOLD', expression: '100' } } } },
      { waitUpdates: { atLeast: 5, timeoutSeconds: 60 } },
      { run: { command: run, timeoutSeconds } },
    ],
    expect,
  });

  it('goes on through a kill -9 and restart mid-rollout, and judges the recovery', async () => {
    const out = new Sink();
    const err = new Sink();
    const reportFile = join(dir, 'restart-report.json');
    const expectations = ['rollout finished', 'all devices in_sync within 90 s after the server is back', 'no update lost'];
    const before = serverPid();
    const r = await runScenario(scenario('outage', `sh ${dir}/restart.sh`, 60, expectations), {
      overrides: { url, tenant: 'DEFAULT', admin: 'admin:admin' }, out, err, reportFile, plainEveryMs: 60_000,
    });
    expect(serverPid()).not.toBe(before); // the step did restart the server
    expect(err.text).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.error).toBeUndefined();
    expect(r.exitCode, err.text).toBe(0);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    expect(report.expectations.map((e: { passed: boolean }) => e.passed)).toEqual([true, true, true]);
    expect(report.devicesByState.done).toBe(30);
    // the devices saw the outage (lost connections, retried) and still finished
    expect(report.requests.total).toBeGreaterThan(0);
    expect(Object.keys(report.errorsByStatus)).toContain('network');
    expect(report.phases.map((p: { name: string }) => p.name)).toContain('step 4 run');
  }, 150_000);

  it('ends with its report and exit code 1 when the server does not come back', async () => {
    const out = new Sink();
    const err = new Sink();
    const reportFile = join(dir, 'gone-report.json');
    const r = await runScenario(scenario('gone', `sh ${dir}/kill.sh`, 4, ['all devices in_sync']), {
      overrides: { url, tenant: 'DEFAULT', admin: 'admin:admin' }, out, err, reportFile, plainEveryMs: 60_000,
    });
    expect(r.exitCode).toBe(1);
    expect(r.error).toContain('waiting for the server to answer after the command');
    expect(err.text).not.toMatch(/\n\s+at /);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    expect(report.exitCode).toBe(1);
    expect(report.expectations).toEqual([expect.objectContaining({ text: 'all devices in_sync', passed: false })]);
    await start(); // for whatever runs after
  }, 150_000);
});
