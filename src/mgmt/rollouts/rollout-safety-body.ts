import { z } from 'zod';
import { assignableSet } from '../../actors/distribution-sets.js';
import { AppError } from '../../domain/errors.js';
import { FAILURE_TYPES, ON_ABORT, type AbortConfig, type RolloutSafety } from '../../domain/rollout-safety.js';
import { NOT_STARTED, type RolloutRecord } from '../../domain/rollout.js';
import type { Store, Tenant } from '../../store/port.js';
import { decimal, id, int } from '../kit/body.js';

/**
 * The request fields of the rollout safety controls (issue 25; domain/rollout-safety.ts), spread into
 * the create and update bodies. Ranges are the schema's (400 BODY_NOT_READABLE naming the field, as
 * for a group's threshold); the rollback set is checked as an assignment's (404, DS_INCOMPLETE, DS_INVALID).
 */
const criterion = z.object({
  failureType: z.enum(FAILURE_TYPES).describe('which closed actions count as failed: error, canceled, timedOut, or any (error or canceled)'),
  thresholdPercentage: decimal(0, 100).describe('0..100: the criterion holds once failed / finished >= this (with at least one failure)'),
  minFinished: int(1).describe('at least 1: no criterion holds before this many actions of the rollout reached a final state'),
});

const abortBody = z.object({
  criteria: z.array(criterion).min(1).max(10),
  onAbort: z.enum(ON_ABORT).nullish().describe('cancel (default): running actions are canceled (soft); finishRunning: left to finish'),
  rollbackTo: id().nullish().describe('a complete, valid distribution set assigned (soft) to every target whose action failed or was canceled by the abort'),
}).describe('Stops the rollout (status stopped, stopReason) once a criterion holds over all its finished actions');

export const safetyParts = {
  abort: abortBody.nullish(),
};
type SafetyBody = { readonly abort?: z.output<typeof abortBody> | null | undefined };

/** The safety fields of a rollout record from a request body (fields not sent stay absent). */
export async function safetyOf(store: Store, tenant: Tenant, body: SafetyBody): Promise<RolloutSafety> {
  if (body.abort == null) return {};
  const abort: AbortConfig = {
    criteria: body.abort.criteria.map((c) => ({
      failureType: c.failureType, thresholdPercentage: c.thresholdPercentage, minFinished: c.minFinished,
    })),
    onAbort: body.abort.onAbort ?? 'cancel',
    rollbackTo: body.abort.rollbackTo ?? null,
  };
  if (abort.rollbackTo !== null) await assignableSet(store, tenant, abort.rollbackTo);
  return { abort };
}

/**
 * The record with the safety fields a PUT sent (null removes one); refused once the rollout started.
 * `checked` is safetyOf's answer for the same body.
 */
export function withSafety(r: RolloutRecord, body: SafetyBody, checked: RolloutSafety): RolloutRecord {
  if (body.abort === undefined) return r;
  if (!NOT_STARTED.includes(r.status)) {
    throw new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${r.id} is ${r.status}: abort can only be changed before the rollout starts`);
  }
  const { abort: _dropped, ...rest } = r;
  return checked.abort === undefined ? rest : { ...rest, abort: checked.abort };
}

/** The safety fields of the rollout JSON (none for a rollout without them). */
export function safetyJson(r: RolloutRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.abort !== undefined) out['abort'] = r.abort;
  if (r.stopReason !== undefined) out['stopReason'] = r.stopReason;
  return out;
}

/** The reply schema of the safety fields (for the OpenAPI document). */
export const safetyResponse = {
  abort: z.object({
    criteria: z.array(z.object({ failureType: z.enum(FAILURE_TYPES), thresholdPercentage: z.number(), minFinished: z.number().int() })),
    onAbort: z.enum(ON_ABORT),
    rollbackTo: z.number().int().nullable(),
  }).optional(),
  stopReason: z.object({
    kind: z.literal('abort'),
    criterion: z.object({ failureType: z.enum(FAILURE_TYPES), thresholdPercentage: z.number(), minFinished: z.number().int() }),
    observedPercentage: z.number(),
    at: z.number().int(),
  }).optional(),
};
