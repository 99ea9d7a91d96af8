import { z } from 'zod';
import { assignableSet } from '../../actors/distribution-sets.js';
import { AppError } from '../../domain/errors.js';
import {
  DEFAULT_BACKOFF, FAILURE_TYPES, MAX_RETRIES, ON_ABORT, type AbortConfig, type RetryConfig, type RolloutSafety,
} from '../../domain/rollout-safety.js';
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

const WEEK_MINUTES = 10_080;
const actionTimeoutBody = z.object({
  inProgressMinutes: int(1, WEEK_MINUTES).describe('1..10080: an action running longer than this since its start is closed as timed out (error)'),
  stepMinutes: int(1, WEEK_MINUTES).nullish().describe('1..10080: an action with no report from its device for this long is closed as timed out'),
}).describe('Closes actions that run too long as errors counted as timedOut (abort criteria)');

const HOUR_SECONDS = 3600;
const backoffBody = z.object({
  initialSeconds: int(1, 7 * 24 * HOUR_SECONDS).nullish().describe('the wait before the first retry (default 60 s)'),
  factor: decimal(1, 10).nullish().describe('1..10: each further retry waits this many times longer (default 2)'),
  maxSeconds: int(1, 7 * 24 * HOUR_SECONDS).nullish().describe('the longest wait (default 3600 s); not below initialSeconds'),
});
const retryBody = z.object({
  failed: int(0, MAX_RETRIES).nullish().describe('retries of a target whose action failed (default 0)'),
  timedOut: int(0, MAX_RETRIES).nullish().describe('retries of a target whose action timed out (default 0); with failed at most 10'),
  backoff: backoffBody.nullish(),
  onlyCodes: z.array(int(-2_147_483_648, 2_147_483_647)).max(100).nullish()
    .describe('only failures the device reported with one of these codes (its feedback code) are retried'),
}).superRefine((r, ctx) => {
  if ((r.failed ?? 0) + (r.timedOut ?? 0) > MAX_RETRIES) {
    ctx.addIssue({ code: 'custom', path: ['failed'], message: `failed and timedOut together at most ${MAX_RETRIES}` });
  }
  const initial = r.backoff?.initialSeconds ?? DEFAULT_BACKOFF.initialSeconds;
  const max = r.backoff?.maxSeconds ?? Math.max(initial, DEFAULT_BACKOFF.maxSeconds);
  if (max < initial) ctx.addIssue({ code: 'custom', path: ['backoff', 'maxSeconds'], message: `must not be below initialSeconds (${initial})` });
}).describe('A failed or timed-out target gets a new action for the set after a backoff, at most n times');

const VERIFY_DESCRIPTION = 'true, or {attribute}: an action closed with success counts as finished only once its device shows the set: '
  + 'it reports the set as its running version (DDI PUT installedBase {name, version}) or, with attribute, reports that attribute '
  + '(configData, which the poll after a success asks for) with the set\'s version or one of its modules\' versions. Another set or version, '
  + 'or a failure reported after the success (A/B fallback), counts as an error ("Install not verified: ..." in its history). A poll alone '
  + 'confirms nothing: until the device shows the set, the action counts as running (with actionTimeout it times out)';
const verifyInstallBody = z.object({
  // the attribute key rules of a device's report (device/attributes.ts)
  // eslint-disable-next-line no-control-regex
  attribute: z.string().min(1).max(128).regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
    .describe('the device attribute (1-128 characters) whose value names the version the device runs'),
});

export const safetyParts = {
  abort: abortBody.nullish(),
  actionTimeout: actionTimeoutBody.nullish(),
  retry: retryBody.nullish(),
  verifyInstall: z.union([z.boolean(), verifyInstallBody]).nullish().describe(VERIFY_DESCRIPTION),
};
type SafetyBody = {
  readonly abort?: z.output<typeof abortBody> | null | undefined;
  readonly retry?: z.output<typeof retryBody> | null | undefined;
  readonly actionTimeout?: z.output<typeof actionTimeoutBody> | null | undefined;
  readonly verifyInstall?: boolean | z.output<typeof verifyInstallBody> | null | undefined;
};
/** The safety fields a body may set, as named in the record and the JSON. */
const FIELDS = ['abort', 'actionTimeout', 'retry', 'verifyInstall'] as const;

/** The safety fields of a rollout record from a request body (fields not sent stay absent). */
export async function safetyOf(store: Store, tenant: Tenant, body: SafetyBody): Promise<RolloutSafety> {
  const timeout = body.actionTimeout;
  const actionTimeout = {
    ...(timeout == null ? {} : {
      actionTimeout: { inProgressMinutes: timeout.inProgressMinutes, stepMinutes: timeout.stepMinutes ?? null },
    }),
    ...(body.retry == null ? {} : { retry: retryOf(body.retry) }),
    ...(body.verifyInstall == null ? {} : { verifyInstall: typeof body.verifyInstall === 'boolean' ? body.verifyInstall : { attribute: body.verifyInstall.attribute } }),
  };
  if (body.abort == null) return actionTimeout;
  const abort: AbortConfig = {
    criteria: body.abort.criteria.map((c) => ({
      failureType: c.failureType, thresholdPercentage: c.thresholdPercentage, minFinished: c.minFinished,
    })),
    onAbort: body.abort.onAbort ?? 'cancel',
    rollbackTo: body.abort.rollbackTo ?? null,
  };
  if (abort.rollbackTo !== null) await assignableSet(store, tenant, abort.rollbackTo);
  return { abort, ...actionTimeout };
}

function retryOf(r: z.output<typeof retryBody>): RetryConfig {
  const initialSeconds = r.backoff?.initialSeconds ?? DEFAULT_BACKOFF.initialSeconds;
  return {
    failed: r.failed ?? 0, timedOut: r.timedOut ?? 0,
    backoff: {
      initialSeconds, factor: r.backoff?.factor ?? DEFAULT_BACKOFF.factor,
      maxSeconds: r.backoff?.maxSeconds ?? Math.max(initialSeconds, DEFAULT_BACKOFF.maxSeconds),
    },
    onlyCodes: r.onlyCodes ?? null,
  };
}

/**
 * The record with the safety fields a PUT sent (null removes one); refused once the rollout started.
 * `checked` is safetyOf's answer for the same body.
 */
export function withSafety(r: RolloutRecord, body: SafetyBody, checked: RolloutSafety): RolloutRecord {
  const sent = FIELDS.filter((f) => body[f] !== undefined);
  if (sent.length === 0) return r;
  if (!NOT_STARTED.includes(r.status)) {
    throw new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${r.id} is ${r.status}: ${sent.join(', ')} can only be changed before the rollout starts`);
  }
  const out: Record<string, unknown> = { ...r };
  for (const f of sent) {
    if (checked[f] === undefined) delete out[f];
    else out[f] = checked[f];
  }
  return out as unknown as RolloutRecord;
}

/** The safety fields of the rollout JSON (none for a rollout without them). */
export function safetyJson(r: RolloutRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (r[f] !== undefined) out[f] = r[f];
  if (r.stopReason !== undefined) out['stopReason'] = r.stopReason;
  return out;
}

/** The reply schema of the safety fields (for the OpenAPI document). */
export const safetyResponse = {
  abort: z.object({
    criteria: z.array(z.object({ failureType: z.enum(FAILURE_TYPES), thresholdPercentage: z.number(), minFinished: z.number().int() })),
    onAbort: z.enum(ON_ABORT),
    rollbackTo: z.number().int().nullish(),
  }).optional(),
  actionTimeout: z.object({ inProgressMinutes: z.number().int(), stepMinutes: z.number().int().nullish() }).optional(),
  retry: z.object({
    failed: z.number().int(), timedOut: z.number().int(),
    backoff: z.object({ initialSeconds: z.number().int(), factor: z.number(), maxSeconds: z.number().int() }),
    onlyCodes: z.array(z.number().int()).nullish(),
  }).optional(),
  verifyInstall: z.union([z.boolean(), z.object({ attribute: z.string() })]).optional().describe(VERIFY_DESCRIPTION),
  stopReason: z.object({
    kind: z.literal('abort'),
    criterion: z.object({ failureType: z.enum(FAILURE_TYPES), thresholdPercentage: z.number(), minFinished: z.number().int() }),
    observedPercentage: z.number(),
    at: z.number().int(),
  }).optional(),
};
