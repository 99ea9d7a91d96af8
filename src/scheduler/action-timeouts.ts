import { inBatches } from '../actors/rollout-actions.js';
import type { ActorSender } from '../actors/roles.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import type { RolloutRecord } from '../domain/rollout.js';
import { timeoutOf } from '../domain/rollout-safety.js';
import type { Tenant } from '../store/port.js';

/** How often (ms) one rollout's open actions are read for timeouts and retries: minute-grained limits need no 200 ms pass. */
export const ACTION_CHECK_MS = 5_000; // 5 seconds

/**
 * Closes the open actions (of a running group) whose rollout's `actionTimeout` ran out (rollout-safety.ts):
 * each gets `engine.timedOut`, so it ends in error with the reason in its history, counts as an error for
 * its group and as timedOut for the abort criteria. Each close is its own compare-and-set: an action the
 * device finished meanwhile is left as it is. Returns how many were closed.
 */
export async function closeTimedOut(
  runtime: ActorSender, tenant: Tenant, rollout: RolloutRecord, actions: readonly ActionRecord[], now: number,
): Promise<number> {
  const timeout = rollout.actionTimeout;
  if (timeout === undefined) return 0;
  const late = actions.flatMap((a) => {
    const message = timeoutOf(a, timeout, now);
    return message === undefined ? [] : [{ id: a.id, message }];
  });
  let closed = 0;
  await inBatches(late, async (a) => {
    const r = await runtime.send(tenant, ACTION, a.id, { type: 'engine.timedOut', at: now, message: a.message });
    if (r.kind === 'committed') closed++;
  });
  return closed;
}
