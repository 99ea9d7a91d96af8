/**
 * `npm run bench -- compare A B`: two result files side by side. Rows are matched by benchmark and by their text
 * cells (row, store, ...); each figure column of a row becomes one line: A, B and the change from A to B.
 * Accepts a run's file (bench/results/<time>.json, sections) and a single benchmark's (<name>-<time>.json).
 */
import { readFileSync } from 'node:fs';
import type { Section } from './section.js';
import { narrowTable, short } from './terminal-table.js';

function load(file: string): Section[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`compare: cannot read ${file}: ${(err as Error).message}`);
  }
  const o = parsed as { sections?: Section[]; name?: string; rows?: Section['rows'] };
  if (Array.isArray(o.sections)) return o.sections;
  if (typeof o.name === 'string' && Array.isArray(o.rows)) return [o as Section];
  throw new Error(`compare: ${file} is not a benchmark result (no sections, no rows)`);
}

const keyOf = (r: Record<string, unknown>): string => Object.values(r).filter((v) => typeof v === 'string').join(' / ');

const change = (a: unknown, b: unknown): string => {
  if (typeof a !== 'number' || typeof b !== 'number') return '';
  if (a === 0) return b === 0 ? '0%' : 'new';
  const pct = ((b - a) / Math.abs(a)) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
};

/** The comparison as text lines (each at most 100 characters). */
export function compareFiles(fileA: string, fileB: string): string {
  const a = load(fileA);
  const b = load(fileB);
  const names = [...new Set([...a, ...b].map((s) => s.name))];
  const out = [`A: ${fileA}`, `B: ${fileB}`, ''];
  for (const name of names) {
    const sa = a.find((s) => s.name === name);
    const sb = b.find((s) => s.name === name);
    const rowsA = new Map((sa?.rows ?? []).map((r) => [keyOf(r), r]));
    const rowsB = new Map((sb?.rows ?? []).map((r) => [keyOf(r), r]));
    const lines: string[][] = [];
    for (const key of [...new Set([...rowsA.keys(), ...rowsB.keys()])]) {
      const ra = rowsA.get(key) ?? {};
      const rb = rowsB.get(key) ?? {};
      const cols = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].filter((c) => typeof ra[c] === 'number' || typeof rb[c] === 'number');
      for (const c of cols) lines.push([key, c, short(ra[c]), short(rb[c]), change(ra[c], rb[c])]);
    }
    for (const k of [...new Set([...Object.keys(sa?.figures ?? {}), ...Object.keys(sb?.figures ?? {})])]) {
      const fa = sa?.figures[k];
      const fb = sb?.figures[k];
      lines.push(['(figure)', k, short(fa), short(fb), change(fa, fb)]);
    }
    out.push(`== ${name}${sa === undefined ? ' (only in B)' : sb === undefined ? ' (only in A)' : ''}`);
    out.push(...narrowTable(['row', 'column', 'A', 'B', 'change'], lines, [34, 26, 12, 12, 8]), '');
  }
  return out.join('\n');
}
