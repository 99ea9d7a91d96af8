/**
 * Reading JSON request bodies. Malformed, truncated or non-UTF-8 bodies and schema failures all
 * answer 400 BODY_NOT_READABLE with a message that names the problem and the field:
 *   `body: truncated JSON (unexpected end of input)`, `body[0].name: required`.
 * Unknown fields are tolerated unless the schema is strict (hawkBit ignores them, reference 0.2).
 */
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { formatIssues, issueMessage } from '../config/zod-messages.js';
import type { Request } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses the body as JSON without a schema. */
export function parseJsonBody(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) throw new AppError('BODY_NOT_READABLE', 'body: required request body is missing');
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError('BODY_NOT_READABLE', 'body: is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    // V8 reports a cut-off document either as "end of JSON input" or as an error at its last position.
    const at = /position (\d+)/.exec(detail);
    const truncated = /end of (JSON )?input|Unterminated string/i.test(detail) || (at !== null && Number(at[1]) >= text.trimEnd().length);
    if (truncated) {
      throw new AppError('BODY_NOT_READABLE', `body: truncated JSON (${detail})`);
    }
    throw new AppError('BODY_NOT_READABLE', `body: malformed JSON (${detail})`);
  }
}

/** Validates a value against a zod schema, throwing 400 BODY_NOT_READABLE naming `root`+path. */
export function validate<S extends z.ZodType>(value: unknown, schema: S, root = 'body'): z.output<S> {
  const result = schema.safeParse(value, { error: issueMessage });
  if (!result.success) throw new AppError('BODY_NOT_READABLE', formatIssues(result.error.issues, root));
  return result.data;
}

/** The request body parsed and validated. */
export function readJson<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  return validate(parseJsonBody(req.body), schema);
}

/**
 * hawkBit accepts a single object where an array is expected (Jackson's
 * accept-single-value-as-array, reference 0.2): wraps a lone non-array value into an array.
 */
export function acceptSingleAsArray<S extends z.ZodType>(item: S) {
  return z.preprocess((v) => (Array.isArray(v) || v === undefined ? v : [v]), z.array(item));
}
