import type { ActionRecord } from '../domain/action.js';
import type { Store, Tenant } from '../store/port.js';

/** Where a target that never polled goes: after every target with a poll on record. */
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * The first time after `now` a device that last polled `at` is expected to poll again: its last
 * poll plus whole polling intervals.
 */
export function nextPoll(at: number, intervalMs: number, now: number): number {
  return at + intervalMs * Math.max(1, Math.ceil((now - at) / intervalMs));
}

/**
 * The actions in the order their targets are expected to poll next (nextPoll of each target's last
 * recorded poll; targets never polled last, each tie in the order given). A device sees a started
 * action at its next poll, so a group whose start takes a while (a commit per action) starts first the
 * actions of the devices that poll first: the group's last device then waits for its poll from when
 * its own action started, not from the end of the whole start. Only the order within one start
 * changes; every action of the group starts in it.
 */
export async function byNextPoll(
  store: Pick<Store, 'getPolls'>, tenant: Tenant, actions: readonly ActionRecord[], intervalMs: number, now: number,
): Promise<ActionRecord[]> {
  if (actions.length < 2 || !(intervalMs > 0)) return [...actions];
  const polls = await store.getPolls(tenant, actions.map((a) => a.targetId));
  const due = polls.map((p) => (p === undefined ? NEVER : nextPoll(p.at, intervalMs, now)));
  return actions.map((a, i) => ({ a, due: due[i]! })).sort((x, y) => x.due - y.due).map((x) => x.a);
}
