/**
 * Readable zod messages: `body[0].name: required`, `limit: must be at most 500, got 9000`.
 * Pass `issueMessage` as the per-parse error map (`schema.safeParse(v, { error: issueMessage })`):
 * schema-level custom messages still win, zod's generic texts never reach a client.
 */
import type { z } from 'zod';

type RawIssue = z.core.$ZodRawIssue;

export function issueMessage(iss: RawIssue): string {
  const got = show(iss.input);
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined ? 'required' : `expected ${article(String(iss.expected))}, got ${got}`;
    case 'too_big':
      return bound('at most', 'less than', iss.maximum, iss.inclusive, iss.origin, iss.input);
    case 'too_small':
      return bound('at least', 'more than', iss.minimum, iss.inclusive, iss.origin, iss.input);
    case 'invalid_value':
      return `must be ${iss.values.length === 1 ? '' : 'one of '}${iss.values.map((v) => show(v)).join(', ')}, got ${got}`;
    case 'invalid_format':
      return iss.format === 'regex' && 'pattern' in iss
        ? `must match ${String(iss.pattern)}, got ${got}`
        : `must be a valid ${iss.format}, got ${got}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(iss.divisor)}, got ${got}`;
    case 'unrecognized_keys':
      return `unknown key${iss.keys.length === 1 ? '' : 's'}: ${iss.keys.join(', ')}`;
    case 'invalid_union':
      return `does not match any accepted form, got ${got}`;
    case 'invalid_key':
      return `has an invalid key`;
    case 'invalid_element':
      return `has an invalid element`;
    default:
      return iss.message ?? `is invalid, got ${got}`;
  }
}

/** `root` + path in JS notation: formatPath('body', [0, 'name']) -> `body[0].name`. */
export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? '(root)' : out;
}

/** One line naming every problem (at most five): `body.name: required; body.limit: ...`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root: string): string {
  const lines = issues.slice(0, 5).map((i) => `${formatPath(root, i.path)}: ${i.message}`);
  if (issues.length > 5) lines.push(`and ${issues.length - 5} more`);
  return lines.join('; ');
}

/** A short, safe rendering of a client-supplied value for an error message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

function bound(incl: string, excl: string, limit: unknown, inclusive: boolean | undefined, origin: string, input: unknown): string {
  const rel = inclusive === false ? excl : incl;
  const n = typeof limit === 'bigint' ? limit.toString() : String(limit);
  switch (origin) {
    case 'string':
      return `must be ${rel} ${n} characters long, got ${typeof input === 'string' ? input.length : show(input)}`;
    case 'array':
    case 'set':
      return `must have ${rel} ${n} items, got ${Array.isArray(input) ? input.length : show(input)}`;
    default:
      return `must be ${rel} ${n}, got ${show(input)}`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
