/**
 * What the server says it does, at `info`: one JSON line per rollout and rollout group status change
 * (with the reason of a pause or stop), and one per action that ends in error (with the device's last
 * message); and the action status counters of /metrics. Fed by the actor runtime once per accepted
 * commit (CommitListener), so each change is told once, by the instance and loop that committed it.
 */
import type { Logger } from 'pino';
import type { ActorChange } from '../actors/change.js';
import type { CommitCause, CommitListener } from '../actors/runtime.js';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../domain/action.js';
import type { Tenant, Write } from '../store/port.js';
import type { Metrics } from './metrics.js';

export interface ActivityLine {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly msg: string;
}

/** The log lines of one commit's actor changes (pure). */
export function activityOf(
  tenant: Tenant, changes: readonly ActorChange[], writes: readonly Write[], cause: CommitCause | undefined,
): ActivityLine[] {
  const out: ActivityLine[] = [];
  for (const c of changes) {
    switch (c.kind) {
      case 'rollout': {
        const r = c.after ?? c.before;
        if (r === undefined || c.before?.status === c.after?.status) break;
        const reason = reasonOf(cause, 'rollout', r.id);
        out.push(statusLine({ activity: 'rollout', tenant, rolloutId: r.id, rollout: r.name }, `rollout ${r.id} '${r.name}'`, c, reason));
        break;
      }
      case 'rolloutgroup': {
        const g = c.after ?? c.before;
        if (g === undefined || c.before?.status === c.after?.status) break;
        const reason = reasonOf(cause, 'rolloutgroup', g.id);
        const fields = { activity: 'rollout.group', tenant, rolloutId: g.rollout, groupId: g.id, group: g.name };
        out.push(statusLine(fields, `rollout ${g.rollout} group ${g.id} '${g.name}'`, c, reason));
        break;
      }
      case 'action': {
        const a = c.after;
        if (a === null || a.status !== 'error' || c.before?.status === 'error') break;
        const lastMessage = lastMessageOf(a, writes);
        out.push({
          fields: {
            activity: 'action.error', tenant, actionId: a.id, controllerId: a.controllerId, targetId: a.targetId, ds: a.ds,
            rolloutId: a.rollout, groupId: a.rolloutGroup, from: c.before?.status ?? null, lastMessage,
          },
          msg: `action ${a.id} of ${a.controllerId} ended in error${lastMessage === null ? '' : `: ${lastMessage}`}`,
        });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** A status change line: from (null for a creation) -> to ('removed' for a removal), with the reason. */
type StatusChange = { readonly before?: { readonly status: string } | undefined; readonly after: { readonly status: string } | null };

type Reason = { reason?: string; by?: string };

function statusLine(fields: Record<string, unknown>, what: string, c: StatusChange, reason: Reason): ActivityLine {
  const from = c.before?.status ?? null;
  const to = c.after?.status ?? 'removed';
  return {
    fields: { ...fields, from, to, ...reason },
    msg: `${what}: ${from ?? 'new'} -> ${to}${reason.reason === undefined ? '' : ` (${reason.reason})`}`,
  };
}

/** The reason the event that made this change gives (an engine pause), else who sent it (an operator's pause or stop). */
function reasonOf(cause: CommitCause | undefined, kind: string, id: number): Reason {
  if (cause === undefined || cause.kind !== kind || cause.id !== id) return {};
  const event = cause.event as { readonly reason?: unknown; readonly by?: unknown };
  const by = typeof event.by === 'string' ? { by: event.by } : {};
  if (typeof event.reason === 'string') return { reason: event.reason, ...by };
  if (cause.event.type === 'mgmt.pause' || cause.event.type === 'mgmt.stop') {
    return { reason: `${cause.event.type === 'mgmt.pause' ? 'paused' : 'stopped'} by ${String(event.by)}`, ...by };
  }
  return by;
}

/** The newest message of the status entry the commit writes for the action (the device's report), if any. */
function lastMessageOf(a: ActionRecord, writes: readonly Write[]): string | null {
  for (const w of writes) {
    if (w.kind !== ACTION_STATUS || w.after === null) continue;
    const entry = w.after as ActionStatusRecord;
    if (entry.actionId === a.id) return entry.messages.at(-1) ?? null;
  }
  return null;
}

/** The runtime's commit listener: the lines above at `info`, and every action status change counted. */
export function activityListener(logger: Logger, metrics: Pick<Metrics, 'actionStatus'>): CommitListener {
  return (tenant, changes, writes, cause) => {
    for (const c of changes) {
      if (c.kind === ACTION && c.after !== null && c.before?.status !== c.after.status) metrics.actionStatus(c.after.status);
    }
    if (!logger.isLevelEnabled('info')) return;
    for (const line of activityOf(tenant, changes, writes, cause)) logger.info(line.fields, line.msg);
  };
}

/** One assignment batch: a Management assignment request's targets for one set, or an auto-assignment pass of one target filter. */
export interface AssignmentBatch {
  readonly tenant: Tenant;
  readonly source: 'management' | 'auto-assignment';
  readonly dsId: number;
  /** Targets the batch asked for, and those that got a new action (the others had the set assigned already). */
  readonly targets: number;
  readonly assigned: number;
  /** The action type(s), comma-separated when the items differ. */
  readonly actionType: string;
  readonly by: string;
  readonly offline?: boolean;
  readonly filterId?: number;
}

export function logAssignment(logger: Pick<Logger, 'info'>, batch: AssignmentBatch): void {
  logger.info({ activity: 'assignment', ...batch },
    `set ${batch.dsId} assigned to ${batch.assigned} of ${batch.targets} targets (${batch.actionType}${batch.offline === true ? ', offline' : ''}) by ${batch.by}`);
}
