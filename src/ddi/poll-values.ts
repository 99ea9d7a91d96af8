/**
 * What the poll body says of the device's next action beyond the action itself: the `c` value of its
 * link and the suggested poll interval. The action offered and its window state come from
 * src/device/active-actions.ts.
 * @see reference/hawkbit-api.md §1.3, §1.4
 */
import type { ActionRecord } from '../domain/action.js';
import type { WindowState } from '../domain/maintenance.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { formatDuration } from '../domain/tenant-config.js';
import type { Stored } from '../store/port.js';

/**
 * `c` of the deploymentBase / confirmationBase link: `31 * hash(action) + offset` as hawkBit computes
 * it, with the action's id and record version standing in for its JPA hashCode. Offsets: 1249 while
 * a maintenance window is open, 1231 once a time-forced action's force time is reached, else 1237.
 * It only has to change the poll body (and so its ETag) when the action changes.
 */
export function linkHash(action: Stored<ActionRecord>, state: WindowState | undefined, now: number): number {
  const a = action.value;
  const hash = (Math.imul(31, a.id | 0) + action.version) | 0;
  const offset = state?.available === true ? 1249 : a.actionType === 'timeforced' && now >= a.forceTime ? 1231 : 1237;
  return (Math.imul(31, hash) + offset) | 0;
}

/**
 * `config.polling.sleep`: the tenant's pollingTime; before a maintenance window opens, the time to
 * its start divided by maintenanceWindowPollCount, kept within [minPollingTime, pollingTime].
 */
export function pollSleep(config: TenantConfigView, state: WindowState | undefined, now: number): string {
  const polling = String(config.get('pollingTime'));
  if (state === undefined || state.available || state.nextStart === null) return polling;
  const max = config.durationMs('pollingTime');
  const min = config.durationMs('minPollingTime');
  const count = Math.max(1, config.number('maintenanceWindowPollCount'));
  const wait = Math.min(max, Math.max(min, (state.nextStart - now) / count));
  return formatDuration(wait);
}
