import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANAGEMENT_API_GENERATIONS } from '../../../src/domain/compat.js';
import { ERRORS, statusOf, type ErrorCode } from '../../../src/domain/errors.js';

/**
 * The error catalogue (src/domain/errors.ts) and the error table (docs/reference/errors.md) say the same: every code
 * is documented with its status, every documented code exists, and every code is one the server can
 * answer (named somewhere in src besides the catalogue), as fastify ties its error table to its docs.
 */
const ROOT = join(import.meta.dirname, '../../..');

/** errorCode -> the statuses it is documented with. */
function documentedRows(): Map<string, Set<number>> {
  const page = readFileSync(join(ROOT, 'docs', 'reference', 'errors.md'), 'utf8');
  const rows = new Map<string, Set<number>>();
  for (const line of page.split('\n')) {
    const m = /^\|\s*(\d{3})\s*\|\s*`([^`]+)`\s*\|/.exec(line);
    if (m !== null) rows.set(m[2] as string, (rows.get(m[2] as string) ?? new Set<number>()).add(Number(m[1])));
  }
  return rows;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const codes = Object.keys(ERRORS) as ErrorCode[];

describe('the error catalogue', () => {
  const rows = documentedRows();

  it('has a documented table', () => {
    expect(rows.size).toBeGreaterThan(0);
  });

  it.each(codes)('documents %s in docs/reference/errors.md with its status', (code) => {
    const { errorCode, status } = ERRORS[code];
    expect([...(rows.get(errorCode) ?? [])], `docs/reference/errors.md has no row for ${errorCode} with ${status}`).toContain(status);
  });

  it('documents no code the catalogue lacks', () => {
    const known = new Set<string>(codes.map((c) => ERRORS[c].errorCode));
    expect([...rows.keys()].filter((c) => !known.has(c))).toEqual([]);
  });

  // compat.managementApi: quota codes answer 403 in 0.9 and 429 in 1.x, each code one status per generation
  it.each(MANAGEMENT_API_GENERATIONS)('answers one status per errorCode in generation %s', (generation) => {
    const statuses = new Map<string, Set<number>>();
    for (const c of codes) statuses.set(ERRORS[c].errorCode, (statuses.get(ERRORS[c].errorCode) ?? new Set()).add(statusOf(c, generation)));
    expect([...statuses].filter(([, s]) => s.size > 1).map(([code, s]) => `${code}: ${[...s].join(', ')}`)).toEqual([]);
    const quota = codes.filter((c) => ERRORS[c].errorCode.startsWith('hawkbit.server.error.quota.'));
    expect(quota.map((c) => statusOf(c, generation))).toEqual(quota.map(() => (generation === '1.x' ? 429 : 403)));
  });

  it('holds only codes the server answers', () => {
    const text = sources(join(ROOT, 'src'))
      .filter((f) => !f.endsWith(join('domain', 'errors.ts')))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(codes.filter((c) => !text.includes(`'${c}'`))).toEqual([]);
  });
});
