/**
 * What the live event streams (src/events) show of a commit, derived from its actor changes and
 * committed with them as the tenant's journal entry (Commit.journal). The runtime is the only writer
 * of actor records, so every change is seen, whoever made it and on whichever instance. Only what an
 * operator follows is kept: a target's update status, an action's status, a rollout's and a group's
 * status (creations and removals too). Polls and feedback that leave the status as it was add nothing.
 */
import type { EffectMessage } from '../store/port.js';
import type { ActorChange } from './change.js';

export interface TargetEvent extends EffectMessage {
  readonly type: 'target';
  readonly targetId: number;
  readonly controllerId: string;
  /** null: the target was deleted. */
  readonly updateStatus: string | null;
}

export interface ActionEvent extends EffectMessage {
  readonly type: 'action';
  readonly actionId: number;
  readonly targetId: number;
  readonly controllerId: string;
  readonly rolloutId: number | null;
  readonly groupId: number | null;
  readonly status: string;
  /** The status before; null for a new action. */
  readonly previous: string | null;
}

export interface RolloutEvent extends EffectMessage {
  readonly type: 'rollout';
  readonly rolloutId: number;
  readonly name: string;
  /** null: the rollout was deleted. */
  readonly status: string | null;
}

export interface GroupEvent extends EffectMessage {
  readonly type: 'group';
  readonly rolloutId: number;
  readonly groupId: number;
  /** null: the group was deleted. */
  readonly status: string | null;
}

export type JournalEvent = TargetEvent | ActionEvent | RolloutEvent | GroupEvent;
export type JournalKind = JournalEvent['type'];
export const JOURNAL_KINDS: readonly JournalKind[] = ['rollout', 'group', 'action', 'target'];

export function journalOf(changes: readonly ActorChange[]): JournalEvent[] {
  const out: JournalEvent[] = [];
  for (const c of changes) {
    switch (c.kind) {
      case 'target': {
        const t = c.after ?? c.before;
        if (t === undefined || (c.before?.updateStatus === c.after?.updateStatus)) break;
        out.push({ type: 'target', targetId: t.id, controllerId: t.controllerId, updateStatus: c.after?.updateStatus ?? null });
        break;
      }
      case 'action': {
        const a = c.after;
        if (a === null || c.before?.status === a.status) break;
        out.push({
          type: 'action', actionId: a.id, targetId: a.targetId, controllerId: a.controllerId, rolloutId: a.rollout, groupId: a.rolloutGroup,
          status: a.status, previous: c.before?.status ?? null,
        });
        break;
      }
      case 'rollout': {
        const r = c.after ?? c.before;
        if (r === undefined || c.before?.status === c.after?.status) break;
        out.push({ type: 'rollout', rolloutId: r.id, name: r.name, status: c.after?.status ?? null });
        break;
      }
      case 'rolloutgroup': {
        const g = c.after ?? c.before;
        if (g === undefined || c.before?.status === c.after?.status) break;
        out.push({ type: 'group', rolloutId: g.rollout, groupId: g.id, status: c.after?.status ?? null });
        break;
      }
    }
  }
  return out;
}
