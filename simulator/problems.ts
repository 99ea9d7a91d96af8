/**
 * Scenario validation problems in words a QA engineer acts on: the key's path with lists numbered from
 * 1 (as the live view numbers the steps: `steps[3].waitRollout.status`), the allowed values
 * (`one of ready, running, ...`), the value given, and "did you mean" for a near-miss key.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** `fleet.groups[1].behaviour`: object keys joined with dots, list positions counted from 1. */
export function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p + 1}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out;
}

/** Edit distance (Levenshtein) between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** The known word closest to `word` when it is a near miss (a typo, American spelling, case). */
export function nearest(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(word.toLowerCase(), k.toLowerCase());
    if (d < bestD) { best = k; bestD = d; }
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(word.length / 4)) ? best : undefined;
}

const given = (input: unknown): string => (input === undefined ? '' : `, got ${JSON.stringify(input)}`);

/**
 * One line per problem. `known` names every key the schema has (for "did you mean"); a union of
 * one-key objects (the steps) is explained by the branch the input meant, or as an unknown kind.
 */
export function describeIssues(issues: readonly Issue[], known: ReadonlySet<string>, base: readonly PropertyKey[] = []): string[] {
  const out: string[] = [];
  for (const i of issues) {
    const path = [...base, ...i.path];
    const where = pathText(path) || '(root)';
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) {
        const hint = nearest(k, known);
        out.push(`${pathText([...path, k])}: unknown key${hint === undefined ? '' : ` (did you mean ${hint}?)`}`);
      }
    } else if (i.code === 'invalid_value') {
      out.push(`${where}: one of ${i.values.map(String).join(', ')}${given(i.input)}`);
    } else if (i.code === 'invalid_union' && 'options' in i && Array.isArray(i.options)) {
      out.push(`${where}: one of ${(i.options as unknown[]).map(String).join(', ')}${given((i.input as Record<string, unknown> | undefined)?.[i.path.at(-1) as string])}`);
    } else if (i.code === 'invalid_union') {
      out.push(...describeUnion(i.errors, known, path, i.input));
    } else {
      const input = i.input;
      const shown = typeof input === 'string' || typeof input === 'number' || typeof input === 'boolean' ? given(input) : '';
      out.push(`${where}: ${i.message}${shown}`);
    }
  }
  return out;
}

/** A union of one-key objects: the branch whose key the input has, else "unknown kind" with a hint. */
function describeUnion(
  branches: readonly (readonly Issue[])[], known: ReadonlySet<string>, path: readonly PropertyKey[], input: unknown,
): string[] {
  const meant = branches.find((b) => !b.some((i) => i.code === 'unrecognized_keys' && i.path.length === 0));
  if (meant !== undefined) return describeIssues(meant, known, path);
  const kinds = branches.flatMap((b) => b.filter((i) => i.code === 'invalid_type' && i.path.length === 1).map((i) => String(i.path[0])));
  const keys = typeof input === 'object' && input !== null ? Object.keys(input) : [];
  const hint = keys.length === 1 ? nearest(keys[0] as string, kinds) : undefined;
  const got = keys.length === 0 ? 'nothing' : keys.join(', ');
  return [`${pathText(path)}: one of ${kinds.join(', ')}, got ${got}${hint === undefined ? '' : ` (did you mean ${hint}?)`}`];
}

/** Every object key anywhere in a schema (unions, lists, records and defaults looked through). */
export function keysOf(schema: z.ZodType, into = new Set<string>()): Set<string> {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  const shape = def['shape'] as Record<string, z.ZodType> | undefined;
  if (shape !== undefined) for (const [k, v] of Object.entries(shape)) { into.add(k); keysOf(v, into); }
  for (const key of ['innerType', 'element', 'valueType', 'in', 'out', 'schema']) {
    const inner = def[key] as z.ZodType | undefined;
    if (inner !== undefined && typeof inner === 'object' && '_zod' in inner) keysOf(inner, into);
  }
  const options = def['options'] as z.ZodType[] | undefined;
  if (Array.isArray(options)) for (const o of options) keysOf(o, into);
  return into;
}
