/**
 * Checks a value against a JSON Schema of the OpenAPI document (the 2020-12 keywords zod writes),
 * resolving `#/components/...` references in the document. Ajv is only a transitive dependency here
 * (through @seriousme/openapi-schema-validator), so tests must not import it; this checker refuses
 * any keyword it does not know rather than ignoring it, so a schema can never pass by being skipped.
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'readOnly', 'writeOnly', 'deprecated', 'format', 'id', '$id']);
const KNOWN = new Set([
  ...ANNOTATIONS, '$ref', 'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items',
  'anyOf', 'oneOf', 'allOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength',
  'minItems', 'maxItems', 'pattern',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(wanted: string, v: unknown): boolean {
  const actual = typeOf(v);
  return wanted === actual || (wanted === 'number' && actual === 'integer');
}

/** The problems of `value` against `schema` (empty: valid), each naming the JSON path. */
export function problems(doc: Schema, schema: unknown, value: unknown, at = '$'): string[] {
  if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)) return [];
  if (schema === false) return [`${at}: no value is allowed`];
  const s = schema as Schema;
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`${at}: the checker does not know the keyword ${k}`);
  const out: string[] = [];
  if (typeof s['$ref'] === 'string') {
    const ref = s['$ref'];
    if (!ref.startsWith('#/')) throw new Error(`${at}: unsupported reference ${ref}`);
    let target: unknown = doc;
    for (const part of ref.slice(2).split('/')) target = (target as Schema | undefined)?.[part];
    if (target === undefined) return [`${at}: unresolved reference ${ref}`];
    out.push(...problems(doc, target, value, at));
  }
  if (s['type'] !== undefined) {
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type'] as string];
    if (!types.some((t) => typeMatches(t, value))) return [...out, `${at}: expected ${types.join('|')}, got ${typeOf(value)}`];
  }
  if (Array.isArray(s['enum']) && !s['enum'].some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    out.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s['enum'])}`);
  }
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(value)) out.push(`${at}: expected ${JSON.stringify(s['const'])}`);
  if (typeof value === 'number') {
    if (typeof s['minimum'] === 'number' && value < s['minimum']) out.push(`${at}: below ${s['minimum']}`);
    if (typeof s['maximum'] === 'number' && value > s['maximum']) out.push(`${at}: above ${s['maximum']}`);
    if (typeof s['exclusiveMinimum'] === 'number' && value <= s['exclusiveMinimum']) out.push(`${at}: not above ${s['exclusiveMinimum']}`);
    if (typeof s['exclusiveMaximum'] === 'number' && value >= s['exclusiveMaximum']) out.push(`${at}: not below ${s['exclusiveMaximum']}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s['minLength'] === 'number' && length < s['minLength']) out.push(`${at}: shorter than ${s['minLength']}`);
    if (typeof s['maxLength'] === 'number' && length > s['maxLength']) out.push(`${at}: longer than ${s['maxLength']}`);
    if (typeof s['pattern'] === 'string' && !new RegExp(s['pattern'], 'u').test(value)) out.push(`${at}: does not match ${s['pattern']}`);
  }
  if (Array.isArray(value)) {
    if (typeof s['minItems'] === 'number' && value.length < s['minItems']) out.push(`${at}: fewer than ${s['minItems']} items`);
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems']) out.push(`${at}: more than ${s['maxItems']} items`);
    if (s['items'] !== undefined) value.forEach((item, i) => out.push(...problems(doc, s['items'], item, `${at}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Schema;
    for (const key of (s['required'] as string[] | undefined) ?? []) if (!(key in obj)) out.push(`${at}: missing ${key}`);
    const props = (s['properties'] as Record<string, unknown> | undefined) ?? {};
    for (const [key, v] of Object.entries(obj)) {
      if (key in props) out.push(...problems(doc, props[key], v, `${at}.${key}`));
      else if (s['additionalProperties'] !== undefined) out.push(...problems(doc, s['additionalProperties'], v, `${at}.${key}`));
      if (s['propertyNames'] !== undefined) out.push(...problems(doc, s['propertyNames'], key, `${at}{${key}}`));
    }
  }
  const branches = (key: string) => ((s[key] as unknown[] | undefined) ?? []).map((b) => problems(doc, b, value, at));
  if (s['allOf'] !== undefined) out.push(...branches('allOf').flat());
  if (s['anyOf'] !== undefined && !branches('anyOf').some((p) => p.length === 0)) out.push(`${at}: matches none of anyOf`);
  if (s['oneOf'] !== undefined && branches('oneOf').filter((p) => p.length === 0).length !== 1) out.push(`${at}: does not match exactly one of oneOf`);
  return out;
}
