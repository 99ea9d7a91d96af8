/**
 * The feedback body devices send on every report, checked by hand: a fast path that gives exactly what
 * the `feedbackBody` schema gives for a well-formed body whose numbers are whole and in range and whose
 * details are strings. Anything else (a coercion hawkBit's Jackson makes, an error, a field present but
 * undefined) it declines, and the schema reads the body, so every error keeps its status and message.
 * test/unit/ddi/quick-feedback.test.ts proves it equal to the schema over a table of good and bad bodies.
 */
import { EXECUTIONS, FINISHED_RESULTS } from '../domain/action.events.js';
import type { FeedbackBody } from './bodies.js';

type Fields = Readonly<Record<string, unknown>>;
type Out = Record<string, unknown>;

const EXECUTION: ReadonlySet<unknown> = new Set(EXECUTIONS);
const FINISHED: ReadonlySet<unknown> = new Set(FINISHED_RESULTS);
const INT32 = [-2_147_483_648, 2_147_483_647] as const;

const fields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a reader answers for a value the schema would not give back as it is. */
const NO = Symbol('declined');
type Read = (v: unknown) => unknown;

/** Copies a nullish field as `read` reads it: absent stays absent, null stays null; false declines. */
function copy(from: Fields, key: string, to: Out, read: Read): boolean {
  const v = from[key];
  if (v === undefined) return !Object.hasOwn(from, key);
  const value = v === null ? null : read(v);
  if (value === NO) return false;
  to[key] = value;
  return true;
}

const wholeIn = (min: number, max: number): Read => (v) => (Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? v : NO);
const int32 = wholeIn(...INT32);
const timestamp = wholeIn(0, Number.MAX_SAFE_INTEGER);
const strings: Read = (v) => (Array.isArray(v) && v.every((m) => typeof m === 'string') ? v : NO);
/** `progress`: its two fields alone, in the schema's order. */
const progress: Read = (p) => {
  const out: Out = {};
  return fields(p) && copy(p, 'cnt', out, int32) && copy(p, 'of', out, int32) ? out : NO;
};

/** The body as the schema reads it, or undefined: the schema decides (and answers the errors). */
export function quickFeedback(body: unknown): FeedbackBody | undefined {
  if (!fields(body) || !fields(body.status)) return undefined;
  const s = body.status;
  const r = s.result;
  if (!fields(r) || !EXECUTION.has(s.execution) || !FINISHED.has(r.finished)) return undefined;
  const out: Out = {};
  const result: Out = { finished: r.finished };
  const status: Out = { execution: s.execution, result };
  if (!copy(body, 'timestamp', out, timestamp) || !copy(r, 'progress', result, progress)) return undefined;
  if (!copy(s, 'code', status, int32) || !copy(s, 'details', status, strings)) return undefined;
  out['status'] = status;
  return out as FeedbackBody;
}
