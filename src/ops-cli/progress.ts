/** What `rollout watch` shows: a rollout and its groups as plain progress bars, one line each. Pure. */

export interface CountedJson {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly totalTargets?: number;
  readonly totalTargetsPerStatus?: Readonly<Record<string, number>>;
}

export interface RolloutState {
  readonly rollout: CountedJson;
  readonly groups: readonly CountedJson[];
}

const BAR = 20;
/** The status column: wide enough for scheduled, finished, running, stopped (longer ones push the bar right). */
const STATUS_WIDTH = 9;

/** Exit code once the rollout is over: 0 finished, 1 stopped or failed; undefined while it runs. */
export function outcome(status: string): 0 | 1 | undefined {
  if (status === 'finished') return 0;
  if (['stopped', 'approval_denied', 'deleting', 'deleted', 'error_creating', 'error_starting'].includes(status)) return 1;
  return undefined;
}

function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.floor((done / total) * BAR)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
}

function progress(e: CountedJson, nameWidth: number): string {
  const total = e.totalTargets ?? 0;
  const done = e.totalTargetsPerStatus?.['finished'] ?? 0;
  const errors = e.totalTargetsPerStatus?.['error'] ?? 0;
  return `${e.name.padEnd(nameWidth)}  ${e.status.padEnd(STATUS_WIDTH)}  ${bar(done, total)} ${done}/${total}${errors > 0 ? ` (${errors} error)` : ''}`;
}

/** The rollout's line first, then one line per group, indented, columns aligned. */
export function progressLines(s: RolloutState): string[] {
  const nameWidth = Math.max(...s.groups.map((g) => g.name.length), 0);
  const head = `rollout ${s.rollout.id} ${s.rollout.name}`;
  return [
    `${head}  ${progress({ ...s.rollout, name: '' }, 0).trimStart()}`,
    ...s.groups.map((g) => `  ${progress(g, nameWidth)}`),
  ];
}
