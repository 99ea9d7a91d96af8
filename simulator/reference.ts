/**
 * The scenario reference docs/reference/simulator.md shows, generated from the scenario schema: one row per
 * key with its type, default and the description the schema gives it. A unit test keeps that table
 * equal to this; `node scripts/scenario-reference.mjs --write` (after a build) rewrites it.
 */
import type { z } from 'zod';
import { authSchema, behaviourSchema, scenarioSchema } from './scenario.js';

interface Def { readonly type: string; readonly [key: string]: unknown }
interface Node { readonly _zod: { readonly def: Def }; readonly description?: string; readonly isInt?: boolean }
interface Row { readonly key: string; type: string; readonly dflt: string; description: string }

/** Schemas used in more than one place: a row names them, their keys get rows of their own under this name. */
const SHARED: readonly (readonly [z.ZodType, string])[] = [[authSchema, 'auth'], [behaviourSchema, 'behaviour']];

export const REFERENCE_START = '<!-- scenario-reference:start (generated from simulator/scenario.ts: node scripts/scenario-reference.mjs --write) -->';
export const REFERENCE_END = '<!-- scenario-reference:end -->';

const node = (s: unknown): Node => s as Node;
const def = (s: unknown): Def => node(s)._zod.def;

/** Looks through optional, default and pipe wrappers: the inner schema, its default, the first description. */
function unwrap(schema: unknown): { inner: Node; dflt: string; description: string } {
  let s = node(schema);
  let dflt = 'required';
  let description = s.description ?? '';
  for (;;) {
    const d = s._zod.def;
    if (d.type === 'optional') { if (dflt === 'required') dflt = '-'; s = node(d['innerType']); } else if (d.type === 'default') { dflt = `\`${JSON.stringify(d['defaultValue'])}\``; s = node(d['innerType']); } else if (d.type === 'pipe') s = node(d['in']);
    else break;
    description ||= s.description ?? '';
  }
  return { inner: s, dflt, description };
}

/** A number's bounds from its checks: ` 1-10000`, ` > 0`, ` >= 1`, ` 0-1`. */
function range(n: Node): string {
  let lo: string | undefined;
  let hi: string | undefined;
  let open = false;
  for (const c of (n._zod.def['checks'] ?? []) as Node[]) {
    const d = c._zod.def as Def & { check?: string; value?: number; inclusive?: boolean };
    if (d.check === 'greater_than') { lo = String(d.value); open = d.inclusive !== true; }
    if (d.check === 'less_than') hi = String(d.value);
  }
  if (lo !== undefined && hi !== undefined && !open) return ` ${lo}-${hi}`;
  return `${lo === undefined ? '' : ` ${open ? '>' : '>='} ${lo}`}${hi === undefined ? '' : `${lo === undefined ? '' : ','} <= ${hi}`}`;
}

/** A type in words: `integer 1-10000`, `list of string`, `a \| b`, `{min, max}`. */
function typeText(schema: unknown): string {
  const s = unwrap(schema).inner;
  const shared = SHARED.find(([x]) => (x as unknown) === s);
  if (shared) return shared[1];
  const d = s._zod.def;
  switch (d.type) {
    case 'number': return `${s.isInt === true ? 'integer' : 'number'}${range(s)}`;
    case 'enum': return Object.values(d['entries'] as Record<string, string>).join(' \\| ');
    case 'literal': return (d['values'] as unknown[]).map(String).join(' \\| ');
    case 'array': return `list of ${typeText(d['element']).startsWith('{') ? 'objects' : typeText(d['element'])}`;
    case 'record': return `map of ${typeText(d['valueType'])}`;
    case 'object': return `{${Object.keys(d['shape'] as object).join(', ')}}`;
    case 'union': return (d['options'] as unknown[]).map(typeText).join(' or ');
    case 'unknown': return 'any';
    default: return d.type;
  }
}

/** Rows for a schema at `key` (none for the schema itself with `own` false) and everything under it. */
function rows(schema: unknown, key: string, out: Row[], used: Map<string, string[]>, own = true): void {
  const { inner, dflt, description } = unwrap(schema);
  const d = inner._zod.def;
  const shared = SHARED.find(([x]) => (x as unknown) === inner)?.[1];
  const objects = d.type === 'union' && (d['options'] as unknown[]).every((o) => def(o).type === 'object');
  if (own) add(out, { key, type: d.type === 'object' || objects ? 'object' : typeText(schema), dflt, description });
  if (shared !== undefined && own) { used.set(shared, [...used.get(shared) ?? [], key]); return; }
  const under = (k: string): string => (key === '' ? k : `${key}.${k}`);
  if (d.type === 'object') for (const [k, v] of Object.entries(d['shape'] as Record<string, unknown>)) rows(v, under(k), out, used);
  else if (objects) for (const o of d['options'] as unknown[]) rows(o, key, out, used, false);
  else if (d.type === 'array' && typeText(d['element']).startsWith('{')) rows(d['element'], `${key}[]`, out, used, false);
  else if (d.type === 'array' && unwrap(d['element']).inner._zod.def.type === 'union') rows(d['element'], `${key}[]`, out, used, false);
}

/** A key met again (another branch of a union): its types merge, the first description stays. */
function add(out: Row[], r: Row): void {
  const seen = out.find((x) => x.key === r.key);
  if (seen === undefined) { out.push({ ...r }); return; }
  if (!seen.type.split(' \\| ').includes(r.type)) seen.type = `${seen.type} \\| ${r.type}`;
  seen.description ||= r.description;
}

/** The table of docs/reference/simulator.md, between its marker comments. */
export function scenarioReference(): string {
  const out: Row[] = [];
  const used = new Map<string, string[]>();
  rows(scenarioSchema, '', out, used, false);
  for (const [schema, name] of SHARED) {
    const where = (used.get(name) ?? []).map((k) => `\`${k}\``).join(', ');
    out.push({ key: name, type: 'object', dflt: '-', description: `the type of ${where}` });
    rows(schema, name, out, used, false);
  }
  const cell = (t: string): string => t.replace(/\|/g, (m, i: number, all: string) => (all[i - 1] === '\\' ? m : '\\|'));
  const lines = ['| key | type | default | meaning |', '|---|---|---|---|',
    ...out.map((r) => `| \`${r.key}\` | ${cell(r.type)} | ${cell(r.dflt)} | ${cell(r.description)} |`)];
  return [REFERENCE_START, ...lines, REFERENCE_END].join('\n');
}
