/**
 * Request bodies of the DDI API, validated with zod. Unknown fields are ignored (old clients still
 * send `id` and `time`); a missing required field, a wrong type or an unknown enum value answers 400
 * naming the field, e.g. `body.status.execution: must be one of "closed", ..., got "done"`.
 * @see spec 2.12; reference/hawkbit-api.md §2
 */
import { z } from 'zod';
import { EXECUTIONS, FINISHED_RESULTS } from '../domain/action.events.js';

/**
 * Jackson reads hawkBit's numbers leniently: numeric strings and fractions (truncated) are accepted,
 * and a single string stands for a one-element array. Devices rely on that (e.g. a Python client
 * sending `time.time() * 1000`), so a final report must not be lost over the number's spelling.
 */
const lenientInt = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v), z.number().min(min).max(max).transform(Math.trunc));
const int32 = lenientInt(-2_147_483_648, 2_147_483_647);
/**
 * Messages: Jackson reads numbers and booleans into a `List<String>` as their text, and one value
 * as a one-element list; null items carry nothing and are dropped. Objects and arrays stay errors.
 */
const text = z.union([z.string(), z.number().transform(String), z.boolean().transform(String)]);
const messages = z.union([
  text.transform((s) => [s]),
  z.array(z.union([text, z.null()])).transform((items) => items.filter((m): m is string => m !== null)),
]);

/** `DdiActionFeedback`: deployment and cancel feedback. */
export const feedbackBody = z
  .object({
    timestamp: lenientInt(0, Number.MAX_SAFE_INTEGER).nullish(),
    status: z.object({
      execution: z.enum(EXECUTIONS),
      result: z.object({
        finished: z.enum(FINISHED_RESULTS),
        // DdiProgress: any integers; clients send {"cnt":1,"of":0} while installing, so no relation is checked
        progress: z.object({ cnt: int32.nullish(), of: int32.nullish() }).nullish(),
      }),
      code: int32.nullish(),
      details: messages.nullish(),
    }),
  });
export type FeedbackBody = z.output<typeof feedbackBody>;

/** `DdiConfirmationFeedback`. */
export const confirmationBody = z.object({
  confirmation: z.enum(['confirmed', 'denied']),
  code: int32.nullish(),
  details: messages.nullish(),
});

/** `DdiConfigData`; scalar values are taken as their text, as Jackson coerces them into a String map. */
export const configDataBody = z.object({
  mode: z.enum(['merge', 'replace', 'remove']).nullish(),
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

/** `DdiAssignedVersion` (set running version). */
export const assignedVersionBody = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
});

/** `DdiActivateAutoConfirmation`; the whole body is optional. Lengths as hawkBit's columns. */
export const activateAutoConfirmBody = z.object({
  initiator: z.string().max(64).nullish(),
  remark: z.string().max(255).nullish(),
});

/** The stored messages of a report: its details, then the status code line (action.machine). */
export function messageCount(report: { readonly code?: number | null; readonly details?: readonly string[] | null }): number {
  return (report.details?.length ?? 0) + (report.code == null ? 0 : 1);
}
