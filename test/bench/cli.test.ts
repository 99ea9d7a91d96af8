/**
 * The bench runner's command line, on fixtures (no benchmark is run; the built dist/bench is needed):
 * --help on the runner and on every benchmark prints options and runs nothing; `compare A B` shows two result
 * files side by side with the change per row; a run writes latest.md, latest.svg (one bar per ratio row) and
 * narrow terminal tables; a failed or help run leaves the last latest.md and latest.svg as they were.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Section } from '../../bench/lib/section.js';

const DIST = join(resolve(import.meta.dirname, '../..'), 'dist/bench');
const RUN = join(DIST, 'run.js');
const built = existsSync(RUN);
const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BENCHMARKS = ['ddi', 'mgmt-targets', 'rollout', 'artifact-upload', 'capacity', 'dmf-status', 'sim-fleet', 'idle-tenants', 'events'];

/** `node script ...args` in a fresh directory `cwd`; killed after 30 s (a --help that ran a benchmark would be). */
function node(args: readonly string[], cwd = mkdtempSync(join(dir, 'cwd-'))): { code: number | null; stdout: string; stderr: string; cwd: string } {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, cwd };
}

const section = (name: string, rows: Record<string, unknown>[], figures: Record<string, number | string> = {}): Section =>
  ({ name, params: {}, rows, figures, notes: [] });
/** A ddi section whose two poll rows did `poll` and `open` req/s against a 50,000 req/s ceiling. */
const ddi = (poll: number, open: number): Section => section('ddi', [
  { row: 'poll, no open action', store: 'memory', 'peregrine req/s': poll, 'ceiling req/s': 50000, ratio: poll / 50000 },
  { row: 'poll, open action', store: 'redis', 'peregrine req/s': open, 'ceiling req/s': 50000, ratio: open / 50000 },
], { 'memory per target (bytes)': 900 });
const RUN_A = { time: '2026-01-01T00:00:00.000Z', sections: [ddi(40000, 20000)] };
const RUN_B = { time: '2026-01-02T00:00:00.000Z', sections: [ddi(44000, 15000), section('events', [{ row: 'subscribers', 'lag p99 ms': 12 }])] };

/** Balanced tags and attribute quoting: enough to tell a well-formed SVG from a broken one. */
function wellFormed(xml: string): boolean {
  const stack: string[] = [];
  const text = xml.replace(/<text\b[^>]*>[^<]*<\/text>/g, '<text/>').replace(/<title>[^<]*<\/title>/g, '<title/>');
  if (/&(?!(amp|lt|gt|quot|apos);)/.test(xml)) return false;
  for (const m of text.matchAll(/<(\/?)([a-zA-Z]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g)) {
    if (m[1] === '/') {
      if (stack.pop() !== m[2]) return false;
    } else if (m[4] !== '/') stack.push(m[2]!);
  }
  return stack.length === 0 && text.replace(/<(\/?)([a-zA-Z]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g, '').trim() === '';
}

describe.skipIf(!built)('bench runner command line (fixtures, no benchmark runs)', () => {
  it('--help on the runner prints the usage and every benchmark, exits 0 and writes nothing', () => {
    for (const flag of ['--help', '-h']) {
      const r = node([RUN, flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('compare A.json B.json');
      for (const b of BENCHMARKS) expect(r.stdout).toContain(` ${b} `);
      expect(readdirSync(r.cwd)).toEqual([]);
    }
  });

  it.each(BENCHMARKS)('--help on %s (directly and through the runner) prints its options, exits 0, runs nothing', (name) => {
    for (const args of [[join(DIST, `${name}.js`), '--help'], [RUN, name, '--help']]) {
      const r = node(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: /m);
      expect(r.stdout).toContain('-h, --help');
      expect(readdirSync(r.cwd)).toEqual([]);
    }
  });

  it('compare A B: each row side by side with the change, narrow; a bad file is a clear error', () => {
    writeFileSync(join(dir, 'a.json'), JSON.stringify(RUN_A));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(RUN_B));
    const r = node([RUN, 'compare', join(dir, 'a.json'), join(dir, 'b.json')]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const row = (key: string, col: string): string[] | undefined => lines.find((l) => l.startsWith(key) && l.includes(col))?.split(/\s{2,}/);
    expect(row('poll, no open action / memory', 'peregrine req/s')).toEqual(['poll, no open action / memory', 'peregrine req/s', '40000', '44000', '+10.0%']);
    expect(row('poll, open action / redis', 'ratio')).toEqual(['poll, open action / redis', 'ratio', '0.40', '0.30', '-25.0%']);
    expect(row('(figure)', 'memory per target')).toEqual(['(figure)', 'memory per target (bytes)', '900', '900', '+0.0%']);
    expect(r.stdout).toContain('== events (only in B)');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(100);

    writeFileSync(join(dir, 'bad.json'), '{"nothing": 1}');
    const bad = node([RUN, 'compare', join(dir, 'a.json'), join(dir, 'bad.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.json is not a benchmark result');
    expect(node([RUN, 'compare', join(dir, 'a.json')]).code).toBe(2);
  });

  it('a run writes latest.md (wide), latest.svg (one bar per ratio row) and prints tables of at most 100 columns', () => {
    const cwd = mkdtempSync(join(dir, 'write-'));
    const wide = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`figure column number ${i}`, i * 1000.5]));
    const sections = [...RUN_B.sections, section('wide', [{ row: 'a <row> & more', ...wide, ratio: 1.5 }])];
    const script = `import(${JSON.stringify(join(DIST, 'lib/results.js'))}).then((m) => m.writeRun(${JSON.stringify(sections)}, new Date(), {}, false))`;
    const r = node(['-e', script], cwd);
    expect(r.code, r.stderr).toBe(0);
    const table = r.stdout.split('\n').filter((l) => !l.startsWith('machine:') && !l.startsWith('results:'));
    for (const l of table) expect(l.length).toBeLessThanOrEqual(100);
    expect(r.stdout).toMatch(/more columns in latest\.md/);
    const md = readFileSync(join(cwd, 'bench/results/latest.md'), 'utf8');
    expect(md).toContain('figure column number 11');
    const svg = readFileSync(join(cwd, 'bench/results/latest.svg'), 'utf8');
    expect(wellFormed(svg)).toBe(true);
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(3); // the ratio rows: two of ddi, one of wide; events has none
    expect(svg).toContain('wide: a &lt;row&gt; &amp; more');
    expect(wellFormed(svg.replace('</svg>', ''))).toBe(false); // the check can fail
  });

  it('a failed run or a help run leaves the last latest.md and latest.svg as they were', () => {
    const cwd = mkdtempSync(join(dir, 'keep-'));
    mkdirSync(join(cwd, 'bench/results'), { recursive: true });
    writeFileSync(join(cwd, 'bench/results/latest.md'), 'the last good run\n');
    writeFileSync(join(cwd, 'bench/results/latest.svg'), '<svg/>\n');
    // ddi refuses an unknown option before it starts anything: the runner records a failed run
    const failed = node([RUN, 'ddi', '--no-such-option'], cwd);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('latest.md and latest.svg not replaced');
    const help = node([RUN, 'ddi', '--help'], cwd);
    expect(help.code).toBe(0);
    expect(readFileSync(join(cwd, 'bench/results/latest.md'), 'utf8')).toBe('the last good run\n');
    expect(readFileSync(join(cwd, 'bench/results/latest.svg'), 'utf8')).toBe('<svg/>\n');
    const files = readdirSync(join(cwd, 'bench/results'));
    expect(files.filter((f) => f.endsWith('-failed.json'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(1);
  });
});
