/**
 * UPDATE_ACTION_STATUS -> the action machine's device events, the ones DDI feedback sends, so both
 * device APIs share one set of rules (reference §1.5-1.7, §4.2). Pure: the caller loads the action.
 *
 * | DMF status      | event (DDI equivalent)                 | allowed when                          |
 * |-----------------|----------------------------------------|---------------------------------------|
 * | DOWNLOAD        | feedback download                      | active, not waiting for confirmation  |
 * | RETRIEVED       | retrieved (as fetching deploymentBase) | idem                                  |
 * | RUNNING         | feedback proceeding                    | idem                                  |
 * | WARNING         | feedback rejected (status WARNING)     | idem                                  |
 * | DOWNLOADED      | feedback downloaded                    | idem                                  |
 * | FINISHED, ERROR | feedback closed success / failure      | idem; or a download-only action DOWNLOADED |
 * | CANCELED        | cancel feedback closed success         | canceling                             |
 * | CANCEL_REJECTED | cancel feedback rejected               | canceling                             |
 * | CONFIRMED       | confirmed                              | waiting for confirmation              |
 * | DENIED          | denied                                 | waiting; or running with the tenant's confirmation flow on |
 * | FINISHED, ERROR | verified / fell back (verifyInstall)   | closed with success, not confirmed yet (rollout-safety.ts) |
 * @see reference/hawkbit-api.md §9 (DmfActionStatus -> Action.Status)
 */
import type { ActionRecord } from '../domain/action.js';
import type { ActionEvent, Report } from '../domain/action.events.js';
import { FAILURE_EVIDENCE, FINISHED_EVIDENCE } from '../domain/install-check.js';
import type { DmfActionStatus } from './protocol.js';

type StatusDecision =
  | {
    readonly ok: true;
    readonly event: ActionEvent;
    /** A final report: the status-entry quota does not apply. */
    readonly final: boolean;
  }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string): StatusDecision => ({ ok: false, reason });

export function statusEvent(status: DmfActionStatus, a: ActionRecord, report: Report, confirmationFlow: boolean): StatusDecision {
  const id = `Action ${a.id}`;
  if (!a.active && a.verifying === true && (status === 'FINISHED' || status === 'ERROR')) {
    // verifyInstall: the thing's next FINISHED says it runs the new set; ERROR that it fell back to the old one
    const event: ActionEvent = status === 'FINISHED'
      ? { type: 'device.verified', at: report.at, evidence: FINISHED_EVIDENCE } : { type: 'device.fellBack', evidence: FAILURE_EVIDENCE, ...report };
    return { ok: true, event, final: true };
  }
  if (!a.active) {
    // a download-only action takes one final report after DOWNLOADED (reference §4.2)
    const late = a.status === 'downloaded' && a.actionType === 'downloadonly' && (status === 'FINISHED' || status === 'ERROR');
    if (!late) return refuse(`${id} is closed (${a.status}); it takes no more status reports`);
    return { ok: true, event: { type: 'device.feedback', execution: 'closed', finished: status === 'FINISHED' ? 'success' : 'failure', ...report }, final: true };
  }
  const waiting = a.status === 'wait_for_confirmation';
  const canceling = a.status === 'canceling';
  const feedback = (execution: 'download' | 'proceeding' | 'rejected' | 'downloaded' | 'closed', finished: 'success' | 'failure' | 'none' = 'none'): StatusDecision =>
    waiting
      ? refuse(`${id} is waiting for confirmation; confirm or deny it first`)
      : { ok: true, event: { type: 'device.feedback', execution, finished, ...report }, final: execution === 'closed' || (execution === 'downloaded' && a.actionType === 'downloadonly') };
  const cancelFeedback = (execution: 'closed' | 'rejected', finished: 'success' | 'none'): StatusDecision =>
    canceling
      ? { ok: true, event: { type: 'device.cancelFeedback', execution, finished, ...report }, final: execution === 'closed' }
      : refuse(`${id} is not being canceled (${a.status}); ${status} is only accepted after CANCEL_DOWNLOAD`);
  switch (status) {
    case 'DOWNLOAD': return feedback('download');
    case 'RUNNING': return feedback('proceeding');
    case 'WARNING': return feedback('rejected');
    case 'DOWNLOADED': return feedback('downloaded');
    case 'FINISHED': return feedback('closed', 'success');
    case 'ERROR': return feedback('closed', 'failure');
    case 'RETRIEVED':
      return waiting ? refuse(`${id} is waiting for confirmation; confirm or deny it first`) : { ok: true, event: { type: 'device.retrieved', at: report.at }, final: false };
    case 'CANCELED': return cancelFeedback('closed', 'success');
    case 'CANCEL_REJECTED': return cancelFeedback('rejected', 'none');
    case 'CONFIRMED':
      return waiting ? { ok: true, event: { type: 'device.confirmed', ...report }, final: false } : refuse(`${id} is not waiting for confirmation (${a.status})`);
    case 'DENIED':
      // revoking a confirmed action needs the flow switched on (reference §1.7); a canceling one never
      return waiting || (confirmationFlow && !canceling)
        ? { ok: true, event: { type: 'device.denied', ...report }, final: false }
        : refuse(`${id} cannot be denied (${a.status})`);
  }
}
