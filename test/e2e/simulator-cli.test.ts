/**
 * The peregrine-sim command (built: dist/) and the simulator's bad input: an unknown key or a wrong
 * type (exit 2 naming it), an unreachable server (retried with backoff, exit 1), wrong admin
 * credentials (exit 2), and a server answering 5xx and 429 (counted and retried, never fatal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runScenario } from '../../simulator/run.js';
import { startApp, type App } from '../helpers/app.js';

const BIN = join(process.cwd(), 'bin/peregrine-sim.js');
const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // asynchronous: the server under test runs in this process and must keep answering
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const SMALL = [
  'name: small', 'durationSeconds: 20', 'timeScale: 0.002', 'connectAttempts: 3',
  "tenantConfig: { pollingTime: '00:05:00', minPollingTime: '00:00:00' }",
  'fleet:', '  auth: { mode: gateway, token: sim-cli-gateway }', '  groups: [{ name: cli, count: 6 }]',
  'steps: [{ createDistributionSet: { name: cli-release } }, { assign: {} }]',
  'expect: [all devices in_sync, no 5xx]',
].join('\n');

describe('peregrine-sim', () => {
  let app: App;
  beforeAll(async () => { app = await startApp('memory'); });
  afterAll(async () => { await app?.server.close(); });

  it('runs a scenario with overrides, prints plain progress lines and the table, writes the JSON report', async () => {
    const report = join(dir, 'report.json');
    const server = ['--url', app.url, '--admin', 'admin:admin'];
    const r = await cli(['--scenario', file('small.yaml', SMALL), ...server, '--devices', '4', '--report', report]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\[0 s\] registering {2}devices 4/m); // not a TTY: plain lines
    expect(r.stdout).toMatch(/devices by state\s+idle 0, downloading 0, installing 0, waiting 0, done 4, failed 0/);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({ scenario: 'small', devices: 4, exitCode: 0, devicesByState: { done: 4 } });
    expect(json.requests.byKind.poll.latencyMs).toHaveProperty('p99');
    expect(json.expectations).toEqual([
      { text: 'all devices in_sync', passed: true, expected: '0 targets of the fleet not in_sync', seen: '0 of 4 targets not in_sync' },
      { text: 'no 5xx', passed: true, expected: 'no device request answered 5xx', seen: 'none' },
    ]);
    const quiet = await cli(['--scenario', file('quiet.yaml', SMALL), ...server, '--devices', '2', '--quiet']);
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
  }, 60_000);

  it('exits 2 naming an unknown key or a wrong type, before anything runs', async () => {
    const before = (await app.mgmt.get('/rest/v1/targets?q=controllerId==cli-*')).json().total;
    const unknown = await cli(['--scenario', file('unknown.yaml', `${SMALL}\nrampSecs: 3\n`), '--url', app.url, '--admin', 'admin:admin']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/rampSecs: unknown key/);
    const wrongFile = file('wrong.yaml', SMALL.replace('count: 6', 'count: six'));
    const wrong = await cli(['--scenario', wrongFile, '--url', app.url, '--admin', 'admin:admin']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/fleet\.groups\[1\]\.count: /);
    const option = await cli(['--scenario', file('opt.yaml', SMALL), '--devices', 'many']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/--devices/);
    const missing = await cli(['--url', app.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--scenario/);
    // nothing ran: no further device registered
    expect((await app.mgmt.get('/rest/v1/targets?q=controllerId==cli-*')).json().total).toBe(before);
  }, 60_000);

  it('exits 1 after retrying an unreachable server with backoff', async () => {
    const r = await cli(['--scenario', file('down.yaml', SMALL), '--url', 'http://127.0.0.1:1', '--admin', 'admin:admin', '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\); retrying in 250 ms \(attempt 1 of 3\)/);
    expect(r.stderr).toMatch(/retrying in 500 ms \(attempt 2 of 3\)/);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1: ECONNREFUSED \(gave up after 3 attempts\)/);
  }, 60_000);

  it('exits 2 on wrong admin credentials, naming the user', async () => {
    const r = await cli(['--scenario', file('creds.yaml', SMALL), '--url', app.url, '--admin', 'admin:wrong', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/admin credentials rejected by http:\/\/127\.0\.0\.1:\d+ \(401\) for user 'admin'/);
  }, 60_000);
});

describe('a server answering 5xx and 429', () => {
  let server: Server;
  let url: string;
  const seen = new Map<string, number>();
  beforeAll(async () => {
    // a real HTTP server in front of nothing: each device's 1st poll gets 503, its 2nd 429 (Retry-After 1), then 200
    server = createServer((req, res) => {
      const path = req.url ?? '';
      if (path.endsWith('/configData')) { res.writeHead(200).end(); return; } // the attributes a device reports once
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      if (n === 1) { res.writeHead(503).end(); return; }
      if (n === 2) { res.writeHead(429, { 'retry-after': '1' }).end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ config: { polling: { sleep: '00:00:01' } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => { server.close(); });

  it('counts them, retries as a device would and carries on', async () => {
    const err = new Writable({ write: (_c, _e, done) => done() });
    const r = await runScenario({
      name: 'flaky-server', server: url, durationSeconds: 3, timeScale: 0.2,
      fleet: { auth: { mode: 'anonymous' }, groups: [{ name: 'f', count: 3 }] }, expect: ['no 5xx'],
    }, { quiet: true, err });
    const rep = r.report!;
    expect(rep.errorsByStatus).toEqual({ 503: 3, 429: 3 });
    expect(rep.requests.byKind.poll!.count).toBeGreaterThan(6); // polls went on after the errors
    expect(rep.expectations[0]).toMatchObject({ passed: false, seen: '503: 3' });
    expect(r.exitCode).toBe(1); // the failed expectation decides, not the errors themselves
    const polls = [...seen.entries()].filter(([path]) => path !== '/'); // '/' is the reachability probe
    expect(polls).toHaveLength(3);
    for (const [, n] of polls) expect(n).toBeGreaterThanOrEqual(3);
  }, 30_000);
});
