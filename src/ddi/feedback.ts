/**
 * Device feedback on a deployment, and the cancellation exchange: `POST .../deploymentBase/{id}/feedback`,
 * `GET .../cancelAction/{id}` and `POST .../cancelAction/{id}/feedback`. The action machine maps each
 * execution value to its status entry and transition (reference §1.5, §1.6); here are the checks
 * hawkBit makes before it and the statuses it answers.
 * @see reference/hawkbit-api.md §1.1 rows 6, 8, 9
 */
import type { DdiDeps } from './deps.js';
import { checkEntryQuota, sendToAction } from '../device/reports.js';
import { SERVER_MESSAGE_PREFIX } from '../domain/action.js';
import { feedbackEntryType } from '../domain/action.machine.js';
import { FAILURE_EVIDENCE } from '../domain/install-check.js';
import { AppError } from '../domain/errors.js';
import type { Handler } from '../http/types.js';
import { actionEndpoint, NO_PARAMS, reportBody } from './action-endpoint.js';
import { feedbackBody, messageCount, type FeedbackBody } from './bodies.js';
import { quickFeedback } from './quick-feedback.js';

/**
 * The line hawkBit's DDI writes first in the status entry of a cancel feedback, before the device's
 * details and code (DdiRootController.generateActionCancelStatus), or none.
 */
function cancelFeedbackLine(execution: string, finished: string): string | undefined {
  switch (execution) {
    case 'rejected': return `${SERVER_MESSAGE_PREFIX}Target rejected the cancellation request.`;
    case 'closed': return `${SERVER_MESSAGE_PREFIX}${finished === 'failure' ? 'Target was not able to complete cancellation.' : 'Cancellation confirmed.'}`;
    case 'canceled': return `${SERVER_MESSAGE_PREFIX}Target reported cancel for a cancel which is not supported by the server.`;
    default: return undefined;
  }
}

function report(body: FeedbackBody, now: number) {
  const s = body.status;
  return {
    execution: s.execution, finished: s.result.finished, at: now, timestamp: body.timestamp ?? now,
    code: s.code ?? null, details: s.details ?? [],
  };
}

export function deploymentFeedbackHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: (req) => reportBody(services, req, feedbackBody, (b) => messageCount(b.status), quickFeedback),
    shows: (a) => a.status !== 'wait_for_confirmation',
    serve: async ({ d, action, params: body }) => {
      const a = action.value;
      const final = body.status.execution === 'closed' || (body.status.execution === 'downloaded' && a.actionType === 'downloadonly');
      if (!a.active && a.verifying === true && body.status.execution === 'closed' && body.status.result.finished === 'failure') {
        // verifyInstall: the device fell back to its previous software after its success feedback
        await sendToAction(services, d.tenant, action, { type: 'device.fellBack', evidence: FAILURE_EVIDENCE, ...report(body, services.now()) });
        return { status: 200 };
      }
      if (!a.active) {
        // a device repeating its final report (the answer got lost) is told it was taken: a 410 would
        // read as "cancelled"; nothing new is recorded
        if (final && feedbackEntryType(body.status.execution, body.status.result.finished) === a.status) return { status: 200 };
        throw new AppError('ACTION_CLOSED', `Action ${a.id} is closed; it takes no more feedback.`);
      }
      if (!final) checkEntryQuota(services, a);
      await sendToAction(services, d.tenant, action, { type: 'device.feedback', ...report(body, services.now()) });
      services.ctx.metrics.ddiFeedback('deployment', body.status.execution);
      return { status: 200 };
    },
  });
}

export function cancelActionHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: NO_PARAMS,
    shows: (a) => a.status === 'canceling' || a.status === 'canceled',
    serve: async ({ d, action }) => {
      // a status entry only; the action stays canceling (the machine records one retrieval)
      if (action.value.status === 'canceling') await sendToAction(services, d.tenant, action, { type: 'device.retrieved', at: services.now(), cancel: true });
      return { status: 200, json: { id: String(action.id), cancelAction: { stopId: String(action.id) } } };
    },
  });
}

export function cancelFeedbackHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: (req) => reportBody(services, req, feedbackBody, (b) => messageCount(b.status), quickFeedback),
    serve: async ({ d, action, params: body }) => {
      const status = action.value.status;
      // a device repeating its report (the answer got lost) is told it was taken, as hawkBit does
      if (status === 'canceled') return { status: 200 };
      if (status !== 'canceling') throw new AppError('ACTION_NOT_CANCELABLE', `Action ${action.id} is not being canceled (status ${status}).`);
      if (body.status.execution !== 'closed') checkEntryQuota(services, action.value);
      const r = report(body, services.now());
      const line = cancelFeedbackLine(body.status.execution, body.status.result.finished);
      const details = line === undefined ? r.details : [line, ...r.details];
      await sendToAction(services, d.tenant, action, { type: 'device.cancelFeedback', ...r, details });
      services.ctx.metrics.ddiFeedback('cancel', body.status.execution);
      return { status: 200 };
    },
  });
}
