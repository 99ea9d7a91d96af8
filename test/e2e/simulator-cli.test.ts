/**
 * The simulator CLI (built: `npx tsc -p tsconfig.build.json`) and its scenario validation: a target-token
 * scenario prepares the tenant itself with --admin, a bad scenario names the field, and a run whose
 * requests are all rejected exits non-zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario, ScenarioError, loadScenario } from '../../simulator/scenario.js';
import { startApp, type App } from '../helpers/app.js';

const CLI = join(process.cwd(), 'dist/simulator/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // Asynchronous on purpose: the server under test runs in this process and must keep answering.
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

function scenarioFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('simulator scenarios', () => {
  it('parses the shipped smoke scenario', () => {
    const s = loadScenario('simulator/scenarios/smoke.yaml');
    expect(s.devices).toMatchObject({ count: 10, auth: { mode: 'gateway' } });
    expect(s.durationSeconds).toBe(20);
  });

  it('applies defaults and names bad fields', () => {
    const s = parseScenario('devices: { count: 3, auth: { mode: anonymous } }\ndurationSeconds: 1\n');
    expect(s).toMatchObject({ server: 'http://127.0.0.1:8080', tenant: 'DEFAULT', timeScale: 0.001, failureRate: 0, devices: { prefix: 'sim-' } });
    expect(() => parseScenario('devices: { count: 0, auth: { mode: anonymous } }\ndurationSeconds: 1\n')).toThrow(/devices\.count/);
    expect(() => parseScenario('devices: { count: 1, auth: { mode: gateway } }\ndurationSeconds: 1\n')).toThrow(/devices\.auth\.token/);
    expect(() => parseScenario('devices: { count: 1, auth: { mode: anonymous } }\ndurationSeconds: 1\nfailureRate: 2\n')).toThrow(/failureRate/);
    expect(() => parseScenario('devices: { count: 1, auth: { mode: anonymous } }\ndurationSeconds: 1\ncolour: red\n')).toThrow(ScenarioError);
    expect(() => parseScenario('devices: [')).toThrow(/invalid YAML/);
  });
});

describe('simulator CLI', () => {
  let app: App;
  beforeAll(async () => { app = await startApp('memory'); });
  afterAll(async () => { await app?.server.close(); });

  it('prepares target tokens with --admin, runs and prints the summary', async () => {
    const file = scenarioFile('target.yaml', [
      'devices: { count: 3, prefix: cli-, auth: { mode: target, token: tok } }',
      'durationSeconds: 1', 'maxSleepMs: 100', 'attributes: { via: cli }',
    ].join('\n'));
    const r = await cli(['run', file, '--url', app.url, '--admin', 'admin:admin', '--no-progress']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/devices\s+3/);
    expect(r.stdout).toMatch(/configData sent\s+3/);
    expect(r.stdout).toMatch(/errors\s+0 \(none\)/);
    const targets = await app.mgmt.get('/rest/v1/targets?q=controllerId==cli-*');
    expect(targets.json().total).toBe(3);
    expect((await app.mgmt.get('/rest/v1/targets/cli-00000/attributes')).json()).toMatchObject({ via: 'cli' });
  });

  it('exits 1 when requests are rejected and 2 for a bad scenario', async () => {
    const file = scenarioFile('bad-token.yaml', 'devices: { count: 2, auth: { mode: gateway, token: nope } }\ndurationSeconds: 1\nmaxSleepMs: 100\n');
    const rejected = await cli(['run', file, '--url', app.url, '--no-progress']);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toMatch(/errors\s+\d+ \(401: \d+\)/);
    expect(rejected.stderr).toMatch(/too many errors/);

    const invalid = await cli(['run', scenarioFile('invalid.yaml', 'devices: { count: -1 }\n'), '--no-progress']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/devices\.count/);
  });
});
