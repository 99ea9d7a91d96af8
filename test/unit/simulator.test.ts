/**
 * The simulator's pure parts: scenario validation (unknown keys and wrong types named by path,
 * step order, group references), command-line overrides, expectations and the fleet scheduler.
 */
import { describe, expect, it, vi } from 'vitest';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { bar, groupBars, stateBars } from '../../simulator/bars.js';
import { LiveDisplay } from '../../simulator/display.js';
import { parseExpectation, judge, type Observation } from '../../simulator/expectations.js';
import { Fleet } from '../../simulator/fleet.js';
import { idPattern, resolveBehaviour } from '../../simulator/group.js';
import { SimHttp } from '../../simulator/http.js';
import { Stats } from '../../simulator/stats.js';
import { loadScenario, parseScenario, rescale, ScenarioError, serverBase, validateScenario, withOverrides } from '../../simulator/scenario.js';
import { Scheduler } from '../../simulator/scheduler.js';

const base = (extra = ''): string => [
  'durationSeconds: 5',
  'fleet:',
  '  auth: { mode: anonymous }',
  '  groups: [{ name: a, count: 3 }]',
  extra,
].join('\n');
const validate = (text: string): ReturnType<typeof validateScenario> => validateScenario(parseScenario(text));

describe('simulator scenario validation', () => {
  it('applies defaults', () => {
    const s = validate(base());
    expect(s).toMatchObject({ server: 'http://127.0.0.1:8080', tenant: 'DEFAULT', timeScale: 1, connections: 64, steps: [], expect: [] });
    expect(s.fleet.groups[0]).toMatchObject({ name: 'a', count: 3, attributes: {} });
  });

  it('names an unknown key by its path', () => {
    expect(() => validate(base('colour: red'))).toThrow(/colour: unknown key/);
    expect(() => validate(base().replace('count: 3', 'count: 3, behavior: {}'))).toThrow('fleet.groups[1].behavior: unknown key (did you mean behaviour?)');
    const typo = base().replace('count: 3', 'count: 3, behaviour: { outcome: { sucess: 1 } }');
    expect(() => validate(typo)).toThrow('fleet.groups[1].behaviour.outcome.sucess: unknown key (did you mean success?)');
  });

  it('refuses createRollout rollbackToPrevious without two sets made before it, and takes the fallBack outcome', () => {
    const admin = 'admin: admin:admin';
    const one = base(`${admin}\nsteps: [{ createDistributionSet: {} }, { createRollout: { rollbackToPrevious: true } }]`);
    expect(() => validate(one)).toThrow('steps[2]: rollbackToPrevious needs two createDistributionSet steps before it');
    const two = base(`${admin}\nsteps: [{ createDistributionSet: {} }, { createDistributionSet: {} }, { createRollout: { rollbackToPrevious: true } }]`);
    expect(validate(two).steps[2]).toEqual({ createRollout: { rollbackToPrevious: true, start: true, body: {} } });
    const fallBack = validate(base().replace('count: 3', 'count: 3, behaviour: { outcome: { fallBack: 1 } }'));
    expect(fallBack.fleet.groups[0]!.behaviour?.outcome).toEqual({ fallBack: 1 });
  });

  it('names the allowed values, the value given, and the step as the live view numbers it', () => {
    const admin = 'admin: admin:admin';
    const steps = base(`${admin}\nsteps: [{ createDistributionSet: {} }, { createRollout: {} }, { waitRollout: { status: done } }]`);
    expect(() => validate(steps)).toThrow('steps[3].waitRollout.status: one of ready, running, paused, finished, stopped, got "done"');
    expect(() => validate(base(`${admin}\nsteps: [{ sleeep: 1 }]`))).toThrow(/steps\[1\]: one of createDistributionSet, .*sleep, run, got sleeep \(did you mean sleep\?\)/);
    expect(() => validate(base().replace('mode: anonymous', 'mode: anonymus'))).toThrow('fleet.auth.mode: one of anonymous, gateway, target, certificate, got "anonymus"');
    expect(() => validate(base('timescale: 0.1'))).toThrow('timescale: unknown key (did you mean timeScale?)');
    // a far-off key gets no guess
    expect(() => validate(base('colour: red'))).toThrow(/colour: unknown key$/);
  });

  it('takes http(s) server URLs with a path prefix, and nothing else', () => {
    expect(validate(base('server: http://10.0.0.1:8080/hawkbit')).server).toBe('http://10.0.0.1:8080/hawkbit');
    expect(serverBase('http://10.0.0.1:8080/hawkbit/')).toEqual({ origin: 'http://10.0.0.1:8080', prefix: '/hawkbit' });
    expect(serverBase('https://h')).toEqual({ origin: 'https://h', prefix: '' });
    for (const bad of ['localhost:8080', '10.0.0.1:8080', 'ftp://h', 'http://h/?a=1', 'http://u:p@h']) {
      expect(() => validate(base(`server: '${bad}'`)), bad).toThrow(`server: expected http://host:port or https://host:port, optionally with a path prefix, got "${bad}"`);
    }
  });

  it('names a wrong type by its path', () => {
    expect(() => validate(base().replace('count: 3', 'count: three'))).toThrow(/fleet\.groups\[1\]\.count: .*number.*, got "three"/i);
    expect(() => validate(base('timeScale: fast'))).toThrow(/timeScale/);
    expect(() => validate(base().replace('count: 3', 'count: 3, behaviour: { faults: { drop: 2 } }'))).toThrow(/faults\.drop/);
    expect(() => validate(base().replace('mode: anonymous', 'mode: gateway'))).toThrow(/fleet\.auth\.token/);
    expect(() => parseScenario('fleet: [')).toThrow(/invalid YAML/);
    expect(() => loadScenario('/nonexistent/scenario.yaml')).toThrow(ScenarioError);
  });

  it('checks steps, group references and expectations', () => {
    const admin = 'admin: admin:admin';
    expect(() => validate(base(`${admin}\nsteps: [{ assign: {} }]`))).toThrow(/steps\[1\]: needs a createDistributionSet/);
    expect(() => validate(base(`${admin}\nsteps: [{ rollout: pause }]`))).toThrow(/steps\[1\]: needs a createRollout/);
    const unknownGroup = base(`${admin}\nsteps: [{ createDistributionSet: {} }, { assign: { groups: [b] } }]`);
    expect(() => validate(unknownGroup)).toThrow(/no fleet group named 'b'/);
    expect(() => validate(base('steps: [{ createDistributionSet: {} }]'))).toThrow(/admin: /);
    expect(() => validate(base('expect: [rollout finished soon]'))).toThrow(/expect\[1\]: unknown expectation/);
    expect(() => validate(base(`${admin}\nexpect: [rollout exploded]`))).toThrow(/unknown rollout state 'exploded'/);
    const twice = base().replace('[{ name: a, count: 3 }]', '[{ name: a, count: 1 }, { name: a, count: 2 }]');
    expect(() => validate(twice)).toThrow(/used twice/);
    expect(() => validate(base().replace('count: 3', "count: 3, idPattern: 'dev'"))).toThrow(/idPattern/);
  });

  it('applies command-line overrides before validating', () => {
    const raw = parseScenario(base().replace('[{ name: a, count: 3 }]', '[{ name: a, count: 30 }, { name: b, count: 10 }]'));
    const s = validateScenario(withOverrides(raw, { url: 'http://10.0.0.1:9', tenant: 'T2', devices: 8, duration: 2, admin: 'u:p' }));
    expect(s).toMatchObject({ server: 'http://10.0.0.1:9', tenant: 'T2', durationSeconds: 2, admin: 'u:p' });
    expect(s.fleet.groups.map((g) => g.count)).toEqual([6, 2]);
    expect(() => validateScenario(withOverrides(raw, { url: 'not a url' }))).toThrow(/server/);
    expect(rescale([1, 1, 1], 10)).toEqual([4, 3, 3]);
  });

  it('parses every shipped scenario', () => {
    for (const name of ['smoke', 'rollout-10k', 'error-threshold', 'cancel', 'confirmation', 'retry-and-timeout']) {
      const s = validateScenario(loadScenario(`simulator/scenarios/${name}.yaml`), name);
      expect(s.name).toBe(name);
      expect(s.expect.length).toBeGreaterThan(0);
    }
    const big = validateScenario(loadScenario('simulator/scenarios/rollout-10k.yaml'));
    expect(big.fleet.groups.reduce((n, g) => n + g.count, 0)).toBe(10_000);
    expect(big.fleet.groups).toHaveLength(5);
  });
});

describe('simulator fleet pieces', () => {
  it('builds controller ids from patterns', () => {
    expect(idPattern('dev-{n:4}-x')(7)).toBe('dev-0007-x');
    expect(idPattern('{n}')(12345)).toBe('12345');
  });

  it('merges behaviour key by key: group over fleet over defaults', () => {
    const b = resolveBehaviour({ poll: { jitter: 0 }, outcome: { failure: 1 } }, { poll: { maxMs: 10 }, faults: { drop: 0.5 } });
    expect(b.poll).toEqual({ jitter: 0, minMs: 50, maxMs: 10 });
    expect(b.outcome).toEqual({ failure: 1 });
    expect(b.faults).toEqual({ drop: 0.5, delay: 0, delayMs: 0 });
    expect(b.download.mode).toBe('whole');
  });

  it('fires entries in due order from one timer', async () => {
    const fired: string[] = [];
    const s = new Scheduler<{ due: number; name: string }>((item) => fired.push(item.name));
    const now = Date.now();
    for (const [name, at] of [['c', 30], ['a', 10], ['d', 40], ['b', 20], ['a2', 10]] as const) s.at(now + at, { due: 0, name });
    expect(s.size).toBe(5);
    await vi.waitFor(() => expect(fired).toHaveLength(5), { timeout: 5000, interval: 10 });
    expect(fired).toEqual(['a', 'a2', 'b', 'c', 'd']);
    expect(s.size).toBe(0);
    s.at(Date.now(), { due: 0, name: 'late' });
    s.stop();
    await new Promise((r) => setTimeout(r, 20)); // deliberately: a stopped scheduler fires nothing later
    expect(fired).not.toContain('late');
  });
});

describe('simulator connections', () => {
  it('gives a free connection to a device\'s follow-up request before the polls waiting for one', async () => {
    const seen: string[] = [];
    let first: ServerResponse | undefined;
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (first === undefined) first = res; // holds the only connection until every request below waits
      else res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = new SimHttp(url, 1, new Stats(), Math.random);
    const faults = { drop: 0, delay: 0, delayMs: 0 };
    const get = (kind: 'poll' | 'deployment', path: string): Promise<number> => http.send({ kind, method: 'GET', url: `${url}${path}`, headers: {}, faults });
    try {
      const sent = [get('poll', '/held'), get('poll', '/poll-1'), get('poll', '/poll-2')];
      const feedback = http.send({ kind: 'feedback', method: 'POST', url: `${url}/feedback`, headers: {}, json: {}, faults });
      sent.push(feedback, get('deployment', '/deploymentBase'), get('poll', '/poll-3'));
      await vi.waitFor(() => expect(first).toBeDefined(), { timeout: 5000, interval: 5 });
      first!.end('{}');
      expect(await Promise.all(sent)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(seen).toEqual(['/held', '/feedback', '/deploymentBase', '/poll-1', '/poll-2', '/poll-3']);
    } finally {
      await http.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('simulator expectations', () => {
  const obs = (o: Partial<Observation> = {}): Observation => ({
    now: 100_000,
    counters: { updates: 10, successes: 9, failures: 1, cancelsAccepted: 0, cancelsRejected: 0, confirmations: 0, denials: 0 },
    errorsByStatus: {}, devicesDone: 5, targets: async () => ({ devices: 5, found: 5, notIn: 0 }), ...o,
  });
  const parsed = (text: string) => {
    const e = parseExpectation(text);
    if (typeof e === 'string') throw new Error(e);
    return e;
  };

  it('decides a rollout deadline and reports what it saw', async () => {
    const e = parsed('rollout finished within 120 s');
    const running = { status: 'running', startedAt: 0, seen: new Map([['running', 0]]), pausedByError: false };
    expect((await judge(e, obs({ now: 60_000, rollout: running }), false)).state).toBe('open');
    const late = await judge(e, obs({ now: 121_000, rollout: running }), false);
    expect(late).toMatchObject({ state: 'fail', seen: 'rollout running after 121.0 s' });
    const finished = new Map([['running', 0], ['finished', 34_600]]);
    expect(await judge(e, obs({ rollout: { ...running, status: 'finished', seen: finished } }), false))
      .toMatchObject({ state: 'pass', seen: 'rollout finished 34.6 s after its start' });
    // the state that satisfied it, and when, even when the rollout moved on since
    expect(await judge(parsed('rollout finished'), obs({ rollout: { ...running, status: 'stopped', seen: finished } }), true))
      .toMatchObject({ state: 'pass', seen: 'rollout finished 34.6 s after its start, now stopped' });
    expect(await judge(e, obs(), true)).toMatchObject({ state: 'fail', seen: 'no rollout was created' });
  });

  it('decides shares, counters and status checks', async () => {
    expect((await judge(parsed('failure share below 5%'), obs(), true))).toMatchObject({ state: 'fail', seen: '10.00% (1 of 10)' });
    expect((await judge(parsed('failure share below 20 %'), obs(), true)).state).toBe('pass');
    expect((await judge(parsed('no 5xx'), obs({ errorsByStatus: { '404': 2 } }), true)).state).toBe('pass');
    const notFound = obs({ errorsByStatus: { '404': 2 } });
    expect((await judge(parsed('no errors'), notFound, false))).toMatchObject({ state: 'fail', seen: '404: 2' });
    expect((await judge(parsed('no 5xx'), obs({ errorsByStatus: { '503': 1 } }), false)).state).toBe('fail');
    expect((await judge(parsed('at least 9 successes'), obs(), false)).state).toBe('pass');
    expect((await judge(parsed('at least 2 failures'), obs(), true))).toMatchObject({ state: 'fail', seen: 'failures = 1' });
    expect(await judge(parsed('at least 0 cancels accepted'), obs(), false)).toMatchObject({ state: 'pass', expected: 'cancels accepted >= 0', seen: 'cancels accepted = 0' });
    expect((await judge(parsed('all devices of g1 in_sync'), obs({ targets: async () => ({ devices: 5, found: 5, notIn: 3 }) }), true)))
      .toMatchObject({ state: 'fail', expected: '0 targets of group g1 not in_sync', seen: '3 of 5 targets not in_sync' });
    // no targets at all is not "all in sync"
    expect((await judge(parsed('all devices in_sync'), obs({ targets: async () => ({ devices: 5, found: 0, notIn: 0 }) }), true)))
      .toMatchObject({ state: 'fail', seen: '0 of 5 devices known to the server' });
    expect(await judge(parsed('all devices in_sync'), obs(), false)).toMatchObject({ state: 'pass', seen: '0 of 5 targets not in_sync' });
    expect(parseExpectation('at least 3 bananas')).toMatch(/unknown counter/);
  });

  it('decides recovery after the server is back, and whether an acknowledged update was lost', async () => {
    const e = parsed('all devices in_sync within 30 s after the server is back');
    const twoBehind = async () => ({ devices: 5, found: 5, notIn: 2 });
    // never away: open until the end, then failed
    expect(await judge(e, obs({ targets: twoBehind }), false)).toMatchObject({ state: 'open', seen: 'the server was never away and back' });
    expect((await judge(e, obs({ targets: twoBehind }), true)).state).toBe('fail');
    expect(await judge(e, obs({ serverBackAt: 80_000, targets: twoBehind }), false))
      .toMatchObject({ state: 'open', seen: '2 of 5 targets not in_sync 20.0 s after the server was back' });
    expect(await judge(e, obs({ serverBackAt: 60_000, targets: twoBehind }), false))
      .toMatchObject({ state: 'fail', expected: '0 targets of the fleet not in_sync within 30 s after the server is back' });
    expect(await judge(e, obs({ serverBackAt: 90_000 }), false)).toMatchObject({ state: 'pass', seen: '0 of 5 targets not in_sync 10.0 s after the server was back' });
    expect(parsed('all devices of g1 error within 5 s after the server is back')).toMatchObject({ group: 'g1', status: 'error', afterBackS: 5 });

    const lost = parsed('no update lost');
    expect((await judge(lost, obs(), false)).state).toBe('open');
    expect(await judge(lost, obs({ devicesDone: 5 }), true)).toMatchObject({ state: 'pass', seen: '5 in_sync, 5 devices done' });
    expect(await judge(lost, obs({ devicesDone: 5, targets: twoBehind }), true)).toMatchObject({ state: 'fail', seen: '3 in_sync, 5 devices done' });
  });
});

describe('simulator live display', () => {
  class Sink extends Writable {
    text = '';
    constructor(readonly isTTY: boolean) { super(); }
    override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
  }
  const setup = (tty: boolean) => {
    const groups = [{ name: 'a', count: 3 }, { name: 'b', count: 2 }];
    const s = validateScenario({ durationSeconds: 1, fleet: { auth: { mode: 'anonymous' }, groups } });
    const stats = new Stats();
    const fleet = new Fleet(s, new SimHttp(s.server, 1, stats, Math.random), stats);
    fleet.moved(0, 2);
    fleet.moved(0, 4);
    stats.completed(true);
    const out = new Sink(tty);
    const rollout = { id: 7, status: 'running', totalTargetsPerStatus: { running: 2, finished: 1 } };
    const deploy = () => [{ name: 'g1', status: 'running', totalTargets: 4, totalTargetsPerStatus: { finished: 1, error: 1, running: 2 } }];
    return { out, display: new LiveDisplay({ fleet, stats, phase: () => 'running', rollout: () => rollout, groups: deploy }, out, 60_000) };
  };

  it('shows devices by state, rates, errors and rollout progress', () => {
    const { display } = setup(false);
    const lines = display.lines();
    expect(lines[0]).toMatch(/^\[0 s\] running {2}devices 5 \(registered 0\)$/);
    expect(lines[1]).toBe('  idle 3  downloading 0  installing 1  waiting 0  done 1  failed 0');
    expect(lines[2]).toMatch(/^ {2}0 req\/s {2}errors 0 {2}updates ok 1 failed 0$/);
    expect(lines[3]).toBe('  rollout #7 running running 2 finished 1');
  });

  it('writes plain lines when not a TTY and redraws in place on a TTY', () => {
    const plain = setup(false);
    plain.display.start();
    plain.display.stop();
    expect(plain.out.text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(plain.out.text).not.toContain('\x1b[');
    const tty = setup(true);
    tty.display.start();
    tty.display.stop();
    expect(tty.out.text.startsWith('[0 s] running')).toBe(true);
    // header, 6 state bars, rates, rollout, 1 group bar: cursor up over the 10 lines, clear
    expect(tty.out.text.endsWith('\n\u001b[10A\u001b[J')).toBe(true);
  });

  it('draws bars on a TTY: one per device state, one per rollout group', () => {
    const lines = setup(true).display.lines(true);
    expect(lines).toHaveLength(10);
    expect(lines[1]).toBe(`  idle         ${'█'.repeat(18)}${'░'.repeat(12)}  3`);
    expect(lines[3]).toBe(`  installing   ${'█'.repeat(6)}${'░'.repeat(24)}  1`);
    expect(lines[8]).toBe('  rollout #7 running running 2 finished 1  (█ finished ▓ error ▒ running)');
    expect(lines[9]).toBe(`    g1  ${'█'.repeat(8)}${'▓'.repeat(7)}${'▒'.repeat(15)}  finished 1  error 1  running 2  of 4  (running)`);
  });
});

describe('simulator progress bars', () => {
  it('fills the parts of the total in proportion, never past the width', () => {
    expect(bar([5], 10, 10)).toBe('█████░░░░░');
    expect(bar([1, 1, 1], 3, 10, ['a', 'b', 'c'])).toBe('aaabbbbccc'); // rounded on the running sum (3.3, 6.7, 10): all 10 cells
    expect(bar([10], 10, 7)).toBe('███████');
    expect(bar([12], 10, 5)).toBe('█████'); // more than the total: full, not longer
    expect(bar([1], 10_000, 30)).toBe('░'.repeat(30)); // below half a cell
    expect(bar([2, 0, 1], 4, 8, ['x', 'y', 'z'])).toBe('xxxxzz░░'); // an empty part draws nothing
  });

  it('draws an empty bar of full width for a zero total', () => {
    expect(bar([0], 0, 12)).toBe('░'.repeat(12));
    expect(bar([3], 0, 4)).toBe('░░░░');
    expect(stateBars([0, 0, 0, 0, 0, 0], 0, 4)).toEqual(['idle', 'downloading', 'installing', 'waiting', 'done', 'failed']
      .map((s) => `  ${s.padEnd(11)}  ░░░░  0`));
    expect(groupBars([{ name: 'empty', status: 'scheduled' }], 4))
      .toEqual(['  empty  ░░░░  finished 0  error 0  running 0  of 0  (scheduled)']);
  });

  it('pads the labels and counts of the bars to one column', () => {
    const lines = groupBars([
      { name: 'a', status: 'finished', totalTargets: 2, totalTargetsPerStatus: { finished: 2 } },
      { name: 'group-2', status: 'running', totalTargetsPerStatus: { running: 1, notstarted: 3 } },
    ], 4);
    expect(lines).toEqual([
      '  a        ████  finished 2  error 0  running 0  of 2  (finished)',
      '  group-2  ▒░░░  finished 0  error 0  running 1  of 4  (running)', // total from the counts when totalTargets is absent
    ]);
    expect(stateBars([900, 0, 0, 0, 100, 0], 1000, 10)[4]).toBe('  done         █░░░░░░░░░   100');
  });
});
