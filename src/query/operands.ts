/**
 * Typing of FIQL values per field kind: each raw value of a comparison becomes an Operand, or the query
 * is refused with a 400 that names the value and the field.
 * @see reference/hawkbit-api.md section 5
 */
import { AppError } from '../domain/errors.js';
import type { FieldSpec, Operand, Placeholder } from './terms.js';

export function isPlaceholder(o: Operand): o is Placeholder {
  return typeof o === 'object' && o !== null;
}

const PLACEHOLDER = /^\$\{(now_ts|overdue_ts)\}$/i;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
const INTEGER = /^[+-]?\d+$/;
const MAX_NUMBER_TEXT = 32;

/** Shortens user text for messages (values can be 4 KiB long). */
export function show(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

function invalid(raw: string, selector: string, expected: string): AppError {
  return new AppError('RSQL_SYNTAX', `value {${show(raw)}} is not valid for field {${selector}}: expected ${expected}`);
}

export function toOperand<E>(spec: FieldSpec<E>, selector: string, raw: string): Operand {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'number': {
      const n = Number(raw);
      if (raw.length > MAX_NUMBER_TEXT || !DECIMAL.test(raw) || !Number.isFinite(n)) throw invalid(raw, selector, 'a number');
      return n;
    }
    case 'timestamp': {
      const m = PLACEHOLDER.exec(raw);
      if (m !== null) return { placeholder: m[1]?.toLowerCase() === 'now_ts' ? 'NOW_TS' : 'OVERDUE_TS' };
      const n = Number(raw);
      if (raw.length > MAX_NUMBER_TEXT || !INTEGER.test(raw) || !Number.isSafeInteger(n)) {
        throw invalid(raw, selector, 'epoch milliseconds, ${NOW_TS} or ${OVERDUE_TS}');
      }
      return n;
    }
    case 'boolean': {
      const lower = raw.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw invalid(raw, selector, 'true or false');
      return lower === 'true';
    }
    case 'enum': {
      const values = spec.enumValues ?? [];
      const lower = raw.toLowerCase();
      const found = values.find((v) => v.toLowerCase() === lower);
      if (found === undefined) throw invalid(raw, selector, `one of [${values.join(', ')}]`);
      return found;
    }
  }
}
