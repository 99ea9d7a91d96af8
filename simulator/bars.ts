/**
 * Progress bars for the live view, drawn with plain characters: a bar is `width` cells, the parts of
 * a total fill it left to right (one glyph per part), the rest is `░`.
 */
import { STATES } from './device.js';
import type { RolloutGroupView } from './mgmt.js';

export const BAR_WIDTH = 30;
const EMPTY = '░';

/**
 * The parts of `total` as one bar. Cells are rounded on the running sum, so the filled cells match
 * the parts' share together and never pass `width`; a zero total draws an empty bar.
 */
export function bar(parts: readonly number[], total: number, width = BAR_WIDTH, glyphs: readonly string[] = ['█']): string {
  let out = '';
  let sum = 0;
  let drawn = 0;
  for (const [i, p] of parts.entries()) {
    sum += Math.max(0, p);
    const upto = total > 0 ? Math.min(width, Math.round((sum / total) * width)) : 0;
    out += (glyphs[Math.min(i, glyphs.length - 1)] ?? '█').repeat(Math.max(0, upto - drawn));
    drawn = Math.max(drawn, upto);
  }
  return out + EMPTY.repeat(width - drawn);
}

/** One bar per device state, each a share of the fleet: `  done         ██████░░░░  1200`. */
export function stateBars(counts: readonly number[], total: number, width = BAR_WIDTH): string[] {
  const label = Math.max(...STATES.map((s) => s.length));
  const digits = String(total).length;
  return STATES.map((s, i) => `  ${s.padEnd(label)}  ${bar([counts[i] ?? 0], total, width)}  ${String(counts[i] ?? 0).padStart(digits)}`);
}

/** The glyphs of a group's bar: finished, error, running (the legend the rollout line shows). */
export const GROUP_GLYPHS = ['█', '▓', '▒'] as const;

/** One bar per rollout group: finished, error and running targets of the group's total. */
export function groupBars(groups: readonly RolloutGroupView[], width = BAR_WIDTH): string[] {
  const label = Math.max(0, ...groups.map((g) => g.name.length));
  return groups.map((g) => {
    const per = g.totalTargetsPerStatus ?? {};
    const [finished, error, running] = [per['finished'] ?? 0, per['error'] ?? 0, per['running'] ?? 0];
    const total = g.totalTargets ?? Object.values(per).reduce((a, b) => a + b, 0);
    return `  ${g.name.padEnd(label)}  ${bar([finished, error, running], total, width, GROUP_GLYPHS)}  `
      + `finished ${finished}  error ${error}  running ${running}  of ${total}  (${g.status})`;
  });
}
