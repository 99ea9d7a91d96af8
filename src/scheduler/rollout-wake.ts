import type { ActorChange } from '../actors/change.js';
import { ACTION } from '../domain/action.js';
import { ENGINE_STATUSES, ROLLOUT } from '../domain/rollout.js';

/**
 * Whether a commit's actor changes may give the rollout engine work now, so its next pass need not wait
 * for the interval: an action of a rollout was closed (its group may have met its success or error
 * condition, or be complete), or a rollout moved into a status the engine works on (created, started,
 * stopped, deleted). Pure and quick: the runtime's commit listener calls it for every commit.
 */
export function wakesEngine(changes: readonly ActorChange[]): boolean {
  for (const c of changes) {
    if (c.kind === ACTION) {
      if (c.after !== null && c.after.rollout !== null && !c.after.active && c.before?.active === true) return true;
    } else if (c.kind === ROLLOUT) {
      if (c.after !== null && c.after.status !== c.before?.status && ENGINE_STATUSES.includes(c.after.status)) return true;
    }
  }
  return false;
}
