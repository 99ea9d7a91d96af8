import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ratioChart } from './ratio-chart.js';
import type { Section } from './section.js';
import { cell, sectionTerminal } from './terminal-table.js';

/** Env var naming the file a benchmark run by bench/run.ts writes its Section to (instead of its own results). */
export const SECTION_FILE_ENV = 'PEREGRINE_BENCH_SECTION_FILE';

function versionOf(cmd: string, args: string[], pattern: RegExp): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return pattern.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`)?.[1] ?? 'not installed';
}

/** What the figures were measured on. */
export function machine() {
  return {
    cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version,
    redis: versionOf('redis-server', ['--version'], /v=(\S+)/), wrk: versionOf('wrk', ['--version'], /wrk (\S+)/),
  };
}

export function sectionMarkdown(s: Section): string {
  const cols = [...new Set(s.rows.flatMap((r) => Object.keys(r)))];
  return [
    `## ${s.name}`, '', `parameters: ${JSON.stringify(s.params)}`, '',
    ...(cols.length === 0 ? [] : [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`, ...s.rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`), '']),
    ...Object.entries(s.figures).map(([k, v]) => `- ${k}: ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : v}`),
    ...(s.notes ?? []).map((n) => `- ${n}`), '',
  ].join('\n');
}

/**
 * bench/results/<time>.json, bench/results/latest.md and latest.svg (the ratio rows as bars) for the sections of
 * one run; prints narrow tables (the wide ones are in latest.md). A failed run writes <time>-failed.json only:
 * the last good latest.md and latest.svg stay.
 */
export function writeRun(sections: readonly Section[], startedAt: Date, extra: Record<string, unknown> = {}, failed = false): string {
  const time = startedAt.toISOString().replace(/[:.]/g, '-');
  const m = machine();
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, failed ? `${time}-failed.json` : `${time}.json`);
  writeFileSync(file, JSON.stringify({ time: startedAt.toISOString(), machine: m, ...extra, sections }, null, 2));
  const title = `peregrine benchmarks (${startedAt.toISOString()})`;
  const head = [
    `machine: ${m.cores} cores, ${m.cpu}, ${m.memGiB} GiB; Node ${m.node}; Redis ${m.redis}; wrk ${m.wrk}`,
    ...Object.entries(extra).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
  ];
  console.log(['', ...head, '', ...sections.map(sectionTerminal)].join('\n'));
  if (failed) {
    console.log(`a benchmark failed: results in ${file}; latest.md and latest.svg not replaced`);
    return file;
  }
  writeFileSync(join(dir, 'latest.md'), [`# ${title}`, '', ...head, '', ...sections.map(sectionMarkdown)].join('\n'));
  writeFileSync(join(dir, 'latest.svg'), ratioChart(sections, title));
  console.log(`results: ${file}, bench/results/latest.md (wide tables), bench/results/latest.svg (ratio chart)`);
  return file;
}

/**
 * A benchmark's outcome. Run by bench/run.ts (SECTION_FILE_ENV set): the Section goes to that file and
 * run.ts writes the run's results. Run alone: bench/results/<name>-<time>.json and .md, and the table printed.
 */
export function writeResults(
  name: string, params: Record<string, unknown>, rows: readonly Record<string, unknown>[],
  figures: Record<string, number | string> = {}, notes: readonly string[] = [],
): void {
  const section: Section = { name, params, rows, figures, notes };
  const target = process.env[SECTION_FILE_ENV];
  if (target !== undefined && target !== '') {
    writeFileSync(target, JSON.stringify(section));
    return;
  }
  const time = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}-${time}.json`), JSON.stringify({ time, machine: machine(), ...section }, null, 2));
  const md = sectionMarkdown(section);
  writeFileSync(join(dir, `${name}-${time}.md`), md);
  console.log(`\n${sectionTerminal(section)}wide table: bench/results/${name}-${time}.md`);
}
