/**
 * The end of a run: a JSON report (written with --report, returned by runScenario) and the table the
 * CLI prints from it. Latencies are milliseconds from request start to response headers.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { DeviceState } from './device.js';
import { KINDS, type Kind, type Stats } from './stats.js';
import { counterWords, type Counter } from './expectations.js';

export interface Percentiles { readonly p50: number; readonly p95: number; readonly p99: number; readonly max: number }

export interface ExpectationResult { readonly text: string; readonly passed: boolean; readonly expected: string; readonly seen: string }

export interface Report {
  readonly scenario: string;
  /** The run's id: its devices report it as the attribute sim_run; its rollout is named with it. */
  readonly runId: string;
  readonly server: string;
  readonly tenant: string;
  readonly devices: number;
  readonly startedAt: string;
  readonly seconds: number;
  readonly exitCode: number;
  /** Seconds spent per phase of the run (preparation, registration, each step, the wait for the expectations). */
  readonly phases: readonly { readonly name: string; readonly seconds: number }[];
  readonly requests: {
    readonly total: number;
    readonly perSecond: number;
    readonly latencyMs: Percentiles;
    readonly byKind: Partial<Record<Kind, { readonly count: number; readonly errors: number; readonly latencyMs: Percentiles }>>;
  };
  readonly errorsByStatus: Readonly<Record<string, number>>;
  readonly faults: { readonly dropped: number; readonly delayed: number };
  readonly downloads: { readonly bytes: number; readonly verifyFailures: number; readonly resumes: number };
  readonly polls: { readonly lagMs: Percentiles; readonly lateOver1s: number };
  readonly devicesByState: Readonly<Record<DeviceState, number>>;
  readonly counters: Readonly<Record<Counter, number>>;
  readonly updatesCompletedPerMinute: readonly number[];
  readonly rollout?: {
    readonly id: number; readonly status: string; readonly runSeconds?: number;
    readonly totalTargetsPerStatus?: Readonly<Record<string, number>>;
  };
  readonly expectations: readonly ExpectationResult[];
}

const ms = (h: RecordableHistogram, unit: number): Percentiles => {
  const r = (v: number): number => Math.round((v / unit) * 100) / 100;
  return h.count === 0 ? { p50: 0, p95: 0, p99: 0, max: 0 }
    : { p50: r(h.percentile(50)), p95: r(h.percentile(95)), p99: r(h.percentile(99)), max: r(h.max) };
};

export function buildReport(o: {
  scenario: string; runId: string; server: string; tenant: string; devices: number; stats: Stats; seconds: number; exitCode: number;
  phases: Report['phases']; devicesByState: Report['devicesByState']; rollout?: Report['rollout'];
  expectations: readonly ExpectationResult[];
}): Report {
  const s = o.stats;
  const all = createHistogram();
  const byKind: Record<string, { count: number; errors: number; latencyMs: Percentiles }> = {};
  for (const k of KINDS) {
    const v = s.byKind[k];
    if (v.count === 0) continue;
    all.add(v.latency);
    byKind[k] = { count: v.count, errors: v.errors, latencyMs: ms(v.latency, 1000) };
  }
  return {
    scenario: o.scenario, runId: o.runId, server: o.server, tenant: o.tenant, devices: o.devices,
    startedAt: new Date(s.startedAt).toISOString(),
    seconds: round(o.seconds), exitCode: o.exitCode, phases: o.phases,
    requests: { total: s.requests, perSecond: round(s.requests / Math.max(0.001, o.seconds)), latencyMs: ms(all, 1000), byKind },
    errorsByStatus: { ...s.errorsByStatus }, faults: { ...s.faults }, downloads: { ...s.downloads },
    polls: { lagMs: ms(s.pollLag, 1), lateOver1s: s.pollsLate },
    devicesByState: o.devicesByState, counters: { ...s.counters }, updatesCompletedPerMinute: [...s.completedPerMinute],
    ...(o.rollout ? { rollout: o.rollout } : {}), expectations: o.expectations,
  };
}

const round = (x: number): number => Math.round(x * 10) / 10;

function table(rows: readonly (readonly string[])[], numeric = true): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const cell = (c: string, i: number): string => (i === 0 || !numeric ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  return rows.map((r) => r.map(cell).join('  ').trimEnd()).join('\n');
}

export function formatReport(r: Report): string {
  const lines: string[] = [];
  lines.push(`${r.scenario} (run ${r.runId}): ${r.devices} devices against ${r.server} (tenant ${r.tenant}), ${r.seconds} s, exit ${r.exitCode}`);
  lines.push('', table([
    ['request', 'count', 'errors', 'p50 ms', 'p95 ms', 'p99 ms'],
    ...Object.entries(r.requests.byKind).map(([k, v]) => [
      k, String(v.count), String(v.errors), String(v.latencyMs.p50), String(v.latencyMs.p95), String(v.latencyMs.p99),
    ]),
    ['all', String(r.requests.total), String(Object.values(r.errorsByStatus).reduce((a, b) => a + b, 0)),
      String(r.requests.latencyMs.p50), String(r.requests.latencyMs.p95), String(r.requests.latencyMs.p99)],
  ]));
  const errors = Object.entries(r.errorsByStatus).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  lines.push('', table([
    ['requests/s', String(r.requests.perSecond)],
    ['errors by status', errors],
    ['injected faults', `dropped ${r.faults.dropped}, delayed ${r.faults.delayed}`],
    ['downloads', `${r.downloads.bytes} bytes, ${r.downloads.resumes} resumed, ${r.downloads.verifyFailures} failed verification`],
    ['poll lag', `p50 ${r.polls.lagMs.p50} ms, p99 ${r.polls.lagMs.p99} ms, max ${r.polls.lagMs.max} ms, `
      + `${r.polls.lateOver1s} polls late > 1 s`],
    ['devices by state', Object.entries(r.devicesByState).map(([k, v]) => `${k} ${v}`).join(', ')],
    ['device counters', Object.entries(r.counters).map(([k, v]) => `${counterWords(k as Counter)} ${v}`).join(', ')],
    ['updates per minute', r.updatesCompletedPerMinute.join(' ') || '-'],
    ...(r.rollout ? [['rollout', rolloutLine(r.rollout)]] : []),
    ['phases', r.phases.map((p) => `${p.name} ${p.seconds} s`).join(', ')],
  ], false));
  if (r.expectations.length > 0) {
    lines.push('', 'expectations:');
    for (const e of r.expectations) {
      lines.push(`  ${e.passed ? 'ok  ' : 'FAIL'} ${e.text}${e.passed ? '' : `: expected ${e.expected}, seen ${e.seen}`}`);
    }
  }
  return lines.join('\n');
}

function rolloutLine(r: NonNullable<Report['rollout']>): string {
  const after = r.runSeconds !== undefined ? ` after ${r.runSeconds} s` : '';
  const per = r.totalTargetsPerStatus ? ` (${Object.entries(r.totalTargetsPerStatus).map(([k, v]) => `${k} ${v}`).join(', ')})` : '';
  return `#${r.id} ${r.status}${after}${per}`;
}
