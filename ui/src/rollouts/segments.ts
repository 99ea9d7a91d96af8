import type { Segment, SegmentKind } from '../components/progress-bar.js';
import type { PerStatus } from './model.js';

/** The bar's order: done first, then failures, work in progress, and what has not begun. */
const ORDER: readonly (readonly [keyof PerStatus, string, SegmentKind])[] = [
  ['finished', 'finished', 'success'], ['error', 'error', 'error'], ['running', 'running', 'running'],
  ['scheduled', 'scheduled', 'scheduled'], ['notstarted', 'not started', 'other'], ['cancelled', 'cancelled', 'other'],
];

/** The stacked bar's segments for `totalTargetsPerStatus` (every status, zeros included, for a stable aria text). */
export function segmentsOf(counts: PerStatus | undefined): Segment[] {
  return ORDER.map(([key, label, kind]) => ({ kind, label, value: counts?.[key] ?? 0 }));
}

/** "12 of 20 finished, 1 error": the short text beside a bar. */
export function progressText(counts: PerStatus | undefined, total: number): string {
  const finished = counts?.finished ?? 0;
  const error = counts?.error ?? 0;
  return `${finished} of ${total} finished${error > 0 ? `, ${error} error` : ''}`;
}
