/**
 * Reading request bodies (JSON, and CBOR on routes that speak it). Malformed, truncated or
 * non-UTF-8 bodies, bodies nested deeper than MAX_BODY_DEPTH, text that is not well-formed Unicode
 * and schema failures all answer 400 BODY_NOT_READABLE with a message that names the problem and
 * the field: `body: truncated JSON (unexpected end of input)`, `body[0].name: required`.
 * Unknown fields are tolerated unless the schema is strict (hawkBit ignores them, reference 0.2).
 */
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { formatIssues, issueMessage } from '../config/zod-messages.js';
import { decodeCbor } from './cbor.js';
import type { Request } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Deepest nesting of arrays and objects a body may have: Jackson's default
 * (StreamReadConstraints.maxNestingDepth), which hawkBit runs with. No hawkBit body needs 10.
 */
export const MAX_BODY_DEPTH = 1000;

function tooDeep(): never {
  throw new AppError('BODY_NOT_READABLE', `body: nested deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`);
}

/** Parses the body as JSON without a schema. */
export function parseJsonBody(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) throw new AppError('BODY_NOT_READABLE', 'body: required request body is missing');
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError('BODY_NOT_READABLE', 'body: is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    if (err instanceof RangeError) tooDeep();
    const detail = err instanceof Error ? err.message : String(err);
    // V8 reports a cut-off document either as "end of JSON input" or as an error at its last position.
    const at = /position (\d+)/.exec(detail);
    const truncated = /end of (JSON )?input|Unterminated string/i.test(detail) || (at !== null && Number(at[1]) >= text.trimEnd().length);
    if (truncated) {
      throw new AppError('BODY_NOT_READABLE', `body: truncated JSON (${detail})`);
    }
    throw new AppError('BODY_NOT_READABLE', `body: malformed JSON (${detail})`);
  }
  return checkBodyValue(value);
}

/** Parses the body as the request's format says (CBOR or JSON) without a schema. */
export function parseBody(req: Pick<Request, 'body' | 'bodyFormat'>): unknown {
  if (req.bodyFormat !== 'cbor') return parseJsonBody(req.body);
  if (req.body === undefined || req.body.length === 0) throw new AppError('BODY_NOT_READABLE', 'body: required request body is missing');
  return checkBodyValue(decodeCbor(req.body, tooDeep));
}

// a lone UTF-16 surrogate: JSON's \ud800 escapes can carry one, and no store, URL or link can hold it
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The checks every decoded body passes before a schema sees it, in one pass without recursion:
 * at most MAX_BODY_DEPTH levels, and every string and key well-formed Unicode, so no stored value
 * can break a later rendering (encodeURIComponent throws on a lone surrogate).
 */
export function checkBodyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) illFormed(value, 'body');
    return value;
  }
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (depth > MAX_BODY_DEPTH) tooDeep();
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v as object);
    if (!Array.isArray(v)) for (const key of Object.keys(v as object)) if (LONE_SURROGATE.test(key)) illFormed(value, 'body');
    for (const child of children) {
      if (typeof child === 'string') {
        if (LONE_SURROGATE.test(child)) illFormed(value, 'body');
      } else if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return value;
}

/** Throws naming the first ill-formed string (depth-first; only runs once one was found). */
function illFormed(root: unknown, path: string): never {
  const found = findIllFormed(root, path);
  throw new AppError('BODY_NOT_READABLE', `${found ?? path}: is not well-formed Unicode (it contains a lone UTF-16 surrogate)`);
}

function findIllFormed(v: unknown, path: string, depth = 0): string | undefined {
  if (typeof v === 'string') return LONE_SURROGATE.test(v) ? path : undefined;
  if (typeof v !== 'object' || v === null || depth >= MAX_BODY_DEPTH) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = findIllFormed(v[i], `${path}[${i}]`, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(v)) {
    const at = `${path}.${LONE_SURROGATE.test(key) ? JSON.stringify(key) : key}`;
    if (LONE_SURROGATE.test(key)) return at;
    const hit = findIllFormed(child, at, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Validates a value against a zod schema, throwing 400 BODY_NOT_READABLE naming `root`+path. */
export function validate<S extends z.ZodType>(value: unknown, schema: S, root = 'body'): z.output<S> {
  const result = schema.safeParse(value, { error: issueMessage });
  if (!result.success) throw new AppError('BODY_NOT_READABLE', formatIssues(result.error.issues, root));
  return result.data;
}

/**
 * The request body parsed (JSON or CBOR, as the request says) and validated; by `quick` first when given,
 * a hand check that gives what the schema gives for the bodies it takes and undefined for the others.
 */
export function readJson<S extends z.ZodType>(req: Request, schema: S, quick?: (value: unknown) => z.output<S> | undefined): z.output<S> {
  const value = parseBody(req);
  return quick?.(value) ?? validate(value, schema);
}

/**
 * hawkBit accepts a single object where an array is expected (Jackson's
 * accept-single-value-as-array, reference 0.2): wraps a lone non-array value into an array.
 */
export function acceptSingleAsArray<S extends z.ZodType>(item: S) {
  return z.preprocess((v) => (Array.isArray(v) || v === undefined ? v : [v]), z.array(item));
}
