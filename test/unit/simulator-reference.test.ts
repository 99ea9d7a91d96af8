/**
 * The scenario reference (docs/reference/simulator.md) is the table generated from the scenario schema
 * (every key with its type, default and description): a key added, renamed or described anew in
 * simulator/scenario.ts fails here until the page says the same (`node scripts/scenario-reference.mjs --write` after a build).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_END, REFERENCE_START, scenarioReference } from '../../simulator/reference.js';

const PAGE = join(import.meta.dirname, '../../docs/reference/simulator.md');

describe('the scenario reference (docs/reference/simulator.md)', () => {
  const generated = scenarioReference();

  it('is the table generated from the scenario schema', () => {
    const page = readFileSync(PAGE, 'utf8');
    const start = page.indexOf(REFERENCE_START);
    const end = page.indexOf(REFERENCE_END);
    expect(start, 'the page has the start marker').toBeGreaterThan(0);
    expect(page.slice(start, end + REFERENCE_END.length)).toBe(generated);
  });

  it('has a row with a type, a default and a description for every key', () => {
    const rows = generated.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(50);
    for (const key of ['`server`', '`fleet.groups[].idPattern`', '`steps[].waitRollout.status`', '`behaviour.faults.drop`', '`auth.tokenPrefix`']) {
      expect(rows.some((r) => r.startsWith(`| ${key} |`)), key).toBe(true);
    }
    expect(rows.filter((r) => r.endsWith('|  |'))).toEqual([]); // every key described
    expect(rows).toContain('| `connections` | integer 1-10000 | `64` | HTTP keep-alive connections to the server; further requests wait for one, a device\'s follow-up requests (deploymentBase, feedback, downloads) before new polls |');
    expect(rows).toContain('| `durationSeconds` | number > 0, <= 604800 | required | longest run; it ends earlier once every expectation is decided |');
  });
});
