/**
 * A smoke run of the benchmark harness (built: `npx tsc -p tsconfig.build.json`): `bench/run.js ddi --smoke --workers 2`
 * with 300 devices and one 1-second round per row, in a scratch directory. It checks that the run
 * produces well-formed results (every row, figure and the generator check; the JSON and latest.md),
 * never how fast anything was: benchmarks print figures, tests do not time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const RUN = join(process.cwd(), 'dist/bench/run.js');
const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [RUN, ...args], { cwd, timeout: 280_000, maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

interface Run {
  machine: Record<string, unknown>;
  sections: { name: string; rows: Record<string, unknown>[]; figures: Record<string, unknown>; notes: string[] }[];
}

describe('bench harness', () => {
  it('runs the DDI benchmark end to end and writes well-formed results', { timeout: 300_000 }, async () => {
    const r = await run(['ddi', '--smoke', '--workers', '2']);
    expect(r.stderr).not.toMatch(/FAILED/);
    expect(r.code).toBe(0);
    const files = readdirSync(join(dir, 'bench', 'results'));
    const json = files.filter((f) => f.endsWith('.json'));
    expect(json).toHaveLength(1);
    expect(files).toContain('latest.md');
    const result = JSON.parse(readFileSync(join(dir, 'bench', 'results', json[0]!), 'utf8')) as Run;
    expect(result.machine).toMatchObject({ cores: expect.any(Number), cpu: expect.any(String), node: process.version });
    expect(result.machine['wrk']).not.toBe('not installed');
    expect(result.machine['redis']).not.toBe('not installed');
    const [ddi] = result.sections;
    expect(ddi?.name).toBe('ddi');
    const names = ddi!.rows.map((row) => `${String(row['row'])} / ${String(row['store'])}`);
    for (const store of ['memory', 'redis']) {
      for (const row of ['poll, no open action', 'poll, no open action, 304 (If-None-Match)', 'poll, open action']) expect(names).toContain(`${row} / ${store}`);
    }
    const redisRows = ddi!.rows.filter((row) => row['store'] === 'redis').map((row) => String(row['row']));
    for (const row of ['deploymentBase', 'feedback', 'artifact download, whole', 'artifact download, ranged']) expect(redisRows.some((n) => n.startsWith(row))).toBe(true);
    for (const row of ddi!.rows) {
      // answers were counted (every one checked 2xx/3xx by the bench) and the ratio is a ratio of the two
      expect(row['peregrine req/s']).toBeGreaterThan(0);
      expect(row['ceiling req/s']).toBeGreaterThan(0);
      expect(row['ratio']).toBeCloseTo(Number(row['peregrine req/s']) / Number(row['ceiling req/s']), 2);
      expect(row['p. min']).toBeLessThanOrEqual(Number(row['p. max']));
    }
    // --workers 2: the Redis poll on 1 loop and on 2, both against a 2-thread ceiling
    for (const row of ['poll, no open action, 1 loop', 'poll, no open action, 2 loops']) expect(names).toContain(`${row} / redis vs 2-thread ceiling`);
    expect(ddi!.figures['redis: poll req/s, 2 loops / 1 loop']).toBeGreaterThan(0);
    const polls = ddi!.rows.filter((row) => row['row'] === 'poll, no open action');
    for (const row of polls) expect(row['p99 ms at half']).toEqual(expect.any(Number));
    expect(ddi!.rows.find((row) => String(row['row']).startsWith('artifact download, whole'))?.['MB/s']).toBeGreaterThan(0);
    expect(ddi!.figures['redis: Redis used_memory per registered target (bytes)']).toBeGreaterThan(0);
    // sampled after a full GC through the server's inspector: a number (it may be about 0 with the smoke's 300 devices)
    expect(Number.isFinite(ddi!.figures['redis: server RSS per registered target after a full GC (bytes; a lower bound)'])).toBe(true);
    expect(ddi!.figures['redis: server RSS with 300 registered targets after a full GC (MiB)']).toBeGreaterThan(0);
    expect(ddi!.figures['generator check: wrk CPU max against the ceiling (cores)']).toBeGreaterThan(0);
    expect(ddi!.notes.filter((n) => n.startsWith('generator check, ceiling under'))).toHaveLength(3);
    const md = readFileSync(join(dir, 'bench', 'results', 'latest.md'), 'utf8');
    expect(md).toContain('| poll, open action | redis |');
    expect(md).toMatch(/wrk \S+/);
  });

  it('runs the live events benchmark end to end (subscribers, lag, memory, poll rounds)', { timeout: 300_000 }, async () => {
    const cwd = mkdtempSync(join(dir, 'events-'));
    const r = await run(['events', '--smoke'], cwd);
    expect(r.stderr).not.toMatch(/FAILED/);
    expect(r.code).toBe(0);
    const json = readdirSync(join(cwd, 'bench', 'results')).filter((f) => f.endsWith('.json'));
    expect(json).toHaveLength(1);
    const [events] = (JSON.parse(readFileSync(join(cwd, 'bench', 'results', json[0]!), 'utf8')) as Run).sections;
    expect(events?.name).toBe('events');
    const value = (row: string): unknown => events!.rows.find((x) => String(x['row']).startsWith(row))?.['value'];
    expect(value('server RSS per subscriber')).toEqual(expect.any(Number));
    for (const when of ['events only (no poll load)', 'under the poll load (with rounds)']) {
      // events reached the subscribers and each entry's lag was counted
      const p50 = events!.rows.find((x) => x['row'] === `event delivery lag ms, ${when}: p50`);
      expect(p50?.['entries']).toBeGreaterThan(0);
      expect(p50?.['value']).toBeGreaterThanOrEqual(0);
      expect(value(`event delivery lag ms, ${when}: max`)).toBeGreaterThanOrEqual(Number(value(`event delivery lag ms, ${when}: p99`)));
    }
    for (const row of ['poll req/s without subscribers', 'poll req/s with 20 subscribers', 'uWS ceiling req/s']) expect(value(row)).toBeGreaterThan(0);
    expect(value('poll ratio with / without subscribers')).toBeGreaterThan(0);
    expect(events!.rows.find((x) => String(x['row']).startsWith('poll req/s with 20'))?.['subscriber CPU']).toEqual(expect.any(Number));
    expect(events!.figures['memory: event streams dropped as slow (/metrics)']).toBe(0);
  });

  it('runs the end-to-end rollout with the simulator in its own process, on both stores', { timeout: 300_000 }, async () => {
    const cwd = mkdtempSync(join(dir, 'rollout-'));
    const r = await run(['rollout', '--only', 'answering', '--smoke'], cwd);
    expect(r.stderr).not.toMatch(/FAILED/);
    expect(r.code).toBe(0);
    const json = readdirSync(join(cwd, 'bench', 'results')).filter((f) => f.endsWith('.json'));
    expect(json).toHaveLength(1);
    const [rollout] = (JSON.parse(readFileSync(join(cwd, 'bench', 'results', json[0]!), 'utf8')) as Run).sections;
    expect(rollout?.rows.map((row) => row['store'])).toEqual(['memory', 'redis']);
    for (const row of rollout!.rows) {
      // 50 devices, 2 groups, 1 s poll: the bound is 2 s, and the ratio is the bound over the measured median
      expect(row['bound (s)']).toBe(2);
      const median = Number(/^([0-9.]+) /.exec(String(row['start -> finished (s)']))?.[1]);
      expect(median).toBeGreaterThan(0);
      expect(row['ratio']).toBeCloseTo(2 / median, 1);
      expect(row['server cores']).toBeGreaterThan(0);
      expect(row['fleet cores']).toBeGreaterThan(0);
      expect(['yes', 'no']).toContain(row['fleet saturated']);
      const store = String(row['store']);
      // every device updated, and each group's times are in order
      expect(rollout!.notes.find((n) => n.startsWith(`${store}: the fleet`))).toMatch(/ 50 updates;/);
      const at = (g: number, what: string): number => Number(rollout!.figures[`${store} group ${g} ${what} at (s)`]);
      for (const g of [1, 2]) expect(at(g, 'finished')).toBeGreaterThanOrEqual(at(g, 'running'));
      expect(at(2, 'running')).toBeGreaterThan(at(1, 'running'));
    }
    expect(rollout!.rows.find((row) => row['store'] === 'redis')?.['redis cores']).toBeGreaterThan(0);
  });

  it('refuses an unknown benchmark with its usage', async () => {
    const r = await run(['no-such-bench']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: npm run bench/);
  });
});
