/**
 * What a run measures: requests per kind with latency histograms (node:perf_hooks, HDR-style),
 * errors by status, device counters, updates completed per minute and how late polls were against
 * their schedule. One mutable object shared by every device: they run on one event loop.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { Counter } from './expectations.js';

export const KINDS = ['poll', 'configData', 'confirmation', 'autoConfirm', 'deployment', 'download', 'feedback', 'cancel'] as const;
export type Kind = (typeof KINDS)[number];

export interface KindStats { count: number; errors: number; readonly latency: RecordableHistogram }

export class Stats {
  readonly startedAt = Date.now();
  readonly byKind = Object.fromEntries(KINDS.map((k) => [k, { count: 0, errors: 0, latency: createHistogram() }])) as
    Record<Kind, KindStats>;
  /** Unexpected answers by status code; `network` for transport errors (refused, reset, timeout). */
  readonly errorsByStatus: Record<string, number> = {};
  readonly counters: Record<Counter, number> = {
    updates: 0, successes: 0, failures: 0, cancelsAccepted: 0, cancelsRejected: 0, confirmations: 0, denials: 0,
  };
  /** Injected faults (not counted as errors: the scenario asked for them). */
  readonly faults = { dropped: 0, delayed: 0 };
  readonly downloads = { bytes: 0, verifyFailures: 0, resumes: 0 };
  /** Updates finished (success or failure) per minute since the start. */
  readonly completedPerMinute: number[] = [];
  /** Milliseconds from a poll's scheduled time to its answer. */
  readonly pollLag = createHistogram();
  pollsLate = 0;
  requests = 0;

  record(kind: Kind, startedNs: bigint, status: number | 'network'): void {
    const k = this.byKind[kind];
    k.count++;
    this.requests++;
    k.latency.record(Math.max(1, Number((process.hrtime.bigint() - startedNs) / 1000n)));
    const ok = typeof status === 'number' && status < 400 && !(kind === 'poll' && status === 429);
    if (!ok) { k.errors++; this.errorsByStatus[String(status)] = (this.errorsByStatus[String(status)] ?? 0) + 1; }
  }

  completed(success: boolean, now = Date.now()): void {
    this.counters.updates++;
    this.counters[success ? 'successes' : 'failures']++;
    const minute = Math.floor((now - this.startedAt) / 60_000);
    while (this.completedPerMinute.length <= minute) this.completedPerMinute.push(0);
    this.completedPerMinute[minute]!++;
  }

  /** A poll answered `lagMs` after it was due (late beyond one second counts separately). */
  pollAnswered(lagMs: number): void {
    this.pollLag.record(Math.max(1, Math.round(lagMs)));
    if (lagMs > 1000) this.pollsLate++;
  }

  totalErrors(): number {
    return Object.values(this.errorsByStatus).reduce((a, b) => a + b, 0);
  }
}
