import { inBatches } from '../actors/rollout-actions.js';
import type { ActorSender } from '../actors/roles.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import type { RolloutGroupRecord, RolloutRecord } from '../domain/rollout.js';
import { timeoutOf } from '../domain/rollout-safety.js';
import type { Store, Tenant } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';

export interface TimeoutDeps {
  readonly store: Pick<Store, 'members' | 'getMany'>;
  readonly runtime: ActorSender;
}

/** How often (ms) one rollout's open actions are read for timeouts: a minute-grained limit needs no 200 ms pass. */
export const TIMEOUT_CHECK_MS = 5_000; // 5 seconds

/**
 * Closes the open actions of a rollout's running groups whose `actionTimeout` ran out (rollout-safety.ts):
 * each gets `engine.timedOut`, so it ends in error with the reason in its history, counts as an error for
 * its group and as timedOut for the abort criteria. Each close is its own compare-and-set: an action the
 * device finished meanwhile is left as it is. Returns how many were closed.
 */
export async function closeTimedOut(
  deps: TimeoutDeps, tenant: Tenant, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[], now: number,
): Promise<number> {
  const timeout = rollout.actionTimeout;
  if (timeout === undefined) return 0;
  let closed = 0;
  for (const g of groups) {
    if (g.status !== 'running') continue;
    const page = await deps.store.members(tenant, ACTION, 'rolloutGroup', String(g.id), SCAN_ALL);
    const actions = (await loadRecords<ActionRecord>(deps.store, tenant, ACTION, page.ids)).map((a) => a.value);
    const late = actions.flatMap((a) => {
      const message = timeoutOf(a, timeout, now);
      return message === undefined ? [] : [{ id: a.id, message }];
    });
    await inBatches(late, async (a) => {
      const r = await deps.runtime.send(tenant, ACTION, a.id, { type: 'engine.timedOut', at: now, message: a.message });
      if (r.kind === 'committed') closed++;
    });
  }
  return closed;
}
