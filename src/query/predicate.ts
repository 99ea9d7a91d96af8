/**
 * Filter → predicate, with hawkBit's semantics:
 * - strings and enums compare case-insensitively (hawkBit runs on case-insensitive collations, and has
 *   `ensureIgnoreCase` for the others); `*` in `==` / `!=` values is a LIKE wildcard, `\*` a literal star;
 *   `=in=` / `=out=` values are literal (SQL IN, no wildcards);
 * - `== ''` matches null or empty, `!= ''` non-null and non-empty; `=is=null` / `=not=null` test for
 *   NULL (a multi-valued field is NULL when it has no values; a missing map key is NULL);
 * - numbers and timestamps compare numerically; ordering operators never match NULL;
 * - `!=`, `=out=` and `=not=` are the exact negation of `==`, `=in=`, `=is=`: a NULL field matches
 *   `name!=x` (hawkBit: `IS NULL OR <> x`), and a multi-valued field matches `tag!=x` when NO value is x
 *   (hawkBit: NOT EXISTS subquery), while `tag==x` matches when ANY value is x (hawkBit: join).
 * @see reference/hawkbit-api.md section 5
 */
import { assertNever } from '../domain/errors.js';

import { lowerPattern, matchGlob, parsePattern } from './glob.js';
import { isPlaceholder } from './operands.js';
import type { Comparison, EvalContext, FieldKind, FieldValue, Filter, Operand } from './terms.js';

export type Predicate<E> = (entity: E) => boolean;
type Test = (values: readonly FieldValue[]) => boolean;

export function toPredicate<E>(filter: Filter<E>, ctx: EvalContext): Predicate<E> {
  switch (filter.kind) {
    case 'and': {
      const parts = filter.children.map((c) => toPredicate(c, ctx));
      return (e) => parts.every((p) => p(e));
    }
    case 'or': {
      const parts = filter.children.map((c) => toPredicate(c, ctx));
      return (e) => parts.some((p) => p(e));
    }
    case 'cmp': {
      const { field, key } = filter;
      const test = compile(filter, ctx);
      return (e) => test(valuesOf(field.get(e, key)));
    }
    default:
      return assertNever(filter);
  }
}

function valuesOf(raw: FieldValue | readonly FieldValue[] | undefined): readonly FieldValue[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return [raw as FieldValue];
  const list = raw as readonly FieldValue[];
  return list.some((v) => v === null || v === undefined) ? list.filter((v) => v !== null && v !== undefined) : list;
}

function compile<E>(cmp: Comparison<E>, ctx: EvalContext): Test {
  const kind = cmp.field.kind;
  const values = cmp.values.map((v) => (isPlaceholder(v) ? (v.placeholder === 'NOW_TS' ? ctx.now : ctx.overdueTs) : v));
  const first = values[0] ?? null;
  switch (cmp.op) {
    case '==':
      return equals(kind, first);
    case '!=':
      return not(equals(kind, first));
    case '=in=':
      return oneOf(kind, values);
    case '=out=':
      return not(oneOf(kind, values));
    case '=lt=':
      return ordered(kind, first, (c) => c < 0);
    case '=le=':
      return ordered(kind, first, (c) => c <= 0);
    case '=gt=':
      return ordered(kind, first, (c) => c > 0);
    case '=ge=':
      return ordered(kind, first, (c) => c >= 0);
    default:
      return assertNever(cmp.op);
  }
}

const not = (t: Test): Test => (vs) => !t(vs);
const lower = (v: FieldValue): string => String(v).toLowerCase();

function toNumber(v: FieldValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return Number.NaN;
}

function equals(kind: FieldKind, operand: Exclude<Operand, object> | number): Test {
  if (operand === null) return (vs) => vs.length === 0;
  if (operand === '') return (vs) => vs.length === 0 || vs.some((v) => v === '');
  if (typeof operand === 'number') return (vs) => vs.some((v) => toNumber(v) === operand);
  if (typeof operand === 'boolean') return (vs) => vs.some((v) => v === operand || lower(v) === String(operand));
  if (kind === 'enum') {
    const want = operand.toLowerCase();
    return (vs) => vs.some((v) => lower(v) === want);
  }
  const p = lowerPattern(parsePattern(operand));
  if (p.kind === 'exact') return (vs) => vs.some((v) => lower(v) === p.text);
  return (vs) => vs.some((v) => matchGlob(p.segments, lower(v)));
}

function oneOf(kind: FieldKind, operands: readonly (Exclude<Operand, object> | number)[]): Test {
  if (kind === 'number' || kind === 'timestamp') {
    const set = new Set(operands.filter((o): o is number => typeof o === 'number'));
    return (vs) => vs.some((v) => set.has(toNumber(v)));
  }
  const set = new Set(operands.map((o) => lower(o)));
  return (vs) => vs.some((v) => set.has(lower(v)));
}

function ordered(kind: FieldKind, operand: Exclude<Operand, object> | number, accept: (c: number) => boolean): Test {
  if (kind === 'number' || kind === 'timestamp') {
    const n = typeof operand === 'number' ? operand : Number.NaN;
    return (vs) =>
      vs.some((v) => {
        const x = toNumber(v);
        return !Number.isNaN(x) && !Number.isNaN(n) && accept(x < n ? -1 : x > n ? 1 : 0);
      });
  }
  const s = lower(operand ?? '');
  return (vs) =>
    vs.some((v) => {
      const x = lower(v);
      return accept(x < s ? -1 : x > s ? 1 : 0);
    });
}
