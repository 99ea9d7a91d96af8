import { Spinner } from '../components/spinner.js';
import { BUSY_STATUSES, statusLabel, type RolloutStatus } from './model.js';

/** The pill colour of each status (app.css `pill-*`): done, failed, moving, waiting for someone. */
const TONE: Readonly<Record<string, string>> = {
  finished: 'success', error: 'error', approval_denied: 'error', running: 'running', starting: 'running',
  paused: 'other', waiting_for_approval: 'other', stopping: 'other', stopped: 'other',
};

/** A rollout's or group's status as a coloured pill; the server's working statuses spin. */
export function StatusBadge({ status }: { readonly status: string }) {
  const busy = BUSY_STATUSES.includes(status as RolloutStatus);
  return (
    <span class={`pill pill-${TONE[status] ?? 'scheduled'} status`} data-status={status}>
      {busy && <Spinner label={statusLabel(status)} />}
      {statusLabel(status)}
    </span>
  );
}
