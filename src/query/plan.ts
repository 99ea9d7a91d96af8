/**
 * Index plans: which store index can supply the candidates for a filter. Only conjuncts of the top-level
 * AND chain qualify (a candidate must satisfy every one of them), and only exact equality: `==` without
 * wildcard or empty value, `=is=<value>`, and `=in=`. The caller fetches the ids under `keys` (the union
 * of `store.members`, or `store.lookupMany` for a unique index) and still applies the full predicate to
 * them; without a plan it scans (bounded).
 */

import { parsePattern } from './glob.js';
import { isPlaceholder } from './operands.js';
import type { Comparison, FieldSpec, Filter, Operand } from './terms.js';

export interface IndexPlan {
  /** The store index name from the field's IndexSpec. */
  readonly index: string;
  /** Distinct keys; an entity matches only if its id is under one of them. */
  readonly keys: readonly string[];
  /** True for a unique index (use `store.lookupMany`); otherwise a multi index (`store.members`). */
  readonly unique: boolean;
  /** The field name the plan came from (for logs and tests). */
  readonly field: string;
}

/**
 * The most selective plan, or undefined when the caller has to scan. Without statistics, "most
 * selective" means: a unique index first, then the fewest keys, then the first conjunct written.
 * Callers that can count (`store.count(tenant, kind, index, key)`) may rank `indexPlans` themselves.
 */
export function planIndex<E>(filter: Filter<E>): IndexPlan | undefined {
  return indexPlans(filter)[0];
}

/** Every usable plan, best first. */
export function indexPlans<E>(filter: Filter<E>): IndexPlan[] {
  const conjuncts = filter.kind === 'and' ? filter.children : [filter];
  const plans: IndexPlan[] = [];
  for (const c of conjuncts) {
    if (c.kind !== 'cmp') continue;
    const plan = planComparison(c);
    if (plan !== undefined) plans.push(plan);
  }
  // Array.prototype.sort is stable: ties keep the written order
  return plans.sort((a, b) => Number(b.unique) - Number(a.unique) || a.keys.length - b.keys.length);
}

/** The plan of one comparison through its field's own index, if it has a usable one. */
export function planComparison<E>(c: Comparison<E>): IndexPlan | undefined {
  const spec = c.field.index;
  if (spec === undefined || c.field.prefix === true) return undefined;
  if (c.op !== '==' && c.op !== '=in=') return undefined;
  if (c.field.kind === 'string' && spec.exact === true) return undefined; // matching is case-insensitive
  const keys = new Set<string>();
  for (const v of c.values) {
    const key = keyOf(c.field, v, c.op === '==');
    if (key === undefined) return undefined;
    if (spec.keys === undefined) keys.add(key);
    else for (const k of spec.keys(key)) keys.add(k);
  }
  return { index: spec.name, keys: [...keys], unique: spec.unique === true, field: c.field.name };
}

function keyOf<E>(field: FieldSpec<E>, v: Operand, wildcards: boolean): string | undefined {
  if (v === null || isPlaceholder(v)) return undefined;
  if (typeof v !== 'string') return String(v);
  if (v === '' && wildcards) return undefined; // == '' also matches NULL, which no index holds
  let text = v;
  if (field.kind === 'string' && wildcards) {
    const p = parsePattern(v);
    if (p.kind === 'glob') return undefined;
    text = p.text;
  }
  return field.index?.exact === true ? text : text.toLowerCase();
}
