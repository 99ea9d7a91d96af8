/**
 * Declarative FIQL field maps: for each resource, which `q=` / `sort=` field names exist, what kind of
 * value they hold and how to read it from an entity. Names are hawkBit's query-field enum names in lower
 * case; dotted sub-attributes (`assignedds.name`) are plain names; map fields (`attribute.<key>`,
 * `metadata.<key>`) are prefixes; default sub-attributes (`tag` == `tag.name`) are aliases.
 * @see reference/hawkbit-api.md section 5
 */

import type { FieldPlanner } from './list.js';

export type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'timestamp';
export type FieldValue = string | number | boolean | null;

/**
 * A multi index of the store that holds the ids of entities per field value.
 * - default: the key is the value in lower case. Required for 'string' fields, because string matching
 *   is case-insensitive: an `exact` index on a string field is never used by the planner.
 * - exact: the key is the value as canonically written (enum spelling from `enumValues`, `String(n)`,
 *   `true`/`false`).
 * - unique: a unique index (`store.lookup`): at most one id per key, so the planner prefers it.
 */
export interface IndexSpec {
  readonly name: string;
  readonly exact?: boolean;
  readonly unique?: boolean;
}

export interface FieldSpec<E> {
  /** Canonical lower-case name (`assignedds.name`; for a map field the prefix, `attribute`). */
  readonly name: string;
  readonly kind: FieldKind;
  /**
   * Reads the value. Arrays are multi-valued fields (tags, modules): positive operators match when any
   * value matches. `key` is the map key for prefix fields, as written in the query.
   */
  readonly get: (entity: E, key?: string) => FieldValue | readonly FieldValue[] | undefined;
  readonly index?: IndexSpec;
  /** For 'enum': the accepted values in their canonical spelling (matched case-insensitively). */
  readonly enumValues?: readonly string[];
  /** Defaults to true; map (prefix) fields are never sortable. */
  readonly sortable?: boolean;
  /** True for map fields declared under `prefixes`. */
  readonly prefix?: boolean;
  /**
   * What the resource loads beside the record for this field (`tags`, `ds`, `poll`, ...): a list
   * query joins only what its filter and sort name (src/query/list.ts).
   */
  readonly join?: string;
  /** Candidates through the records the field names, e.g. `tag.name` through the tags (see `via`). */
  readonly via?: Via;
  /** A candidate plan of its own, for an index the generic planner does not know (the poll times). */
  readonly plan?: FieldPlanner;
}

/**
 * An indexed path through other records: the ids of the `kind` records whose view satisfies the
 * comparison (by the `lookup` unique index for literal values, else by reading the small kind),
 * then this kind's ids under those ids in its multi index `index`.
 */
export interface Via {
  readonly kind: string;
  readonly index: string;
  readonly lookup?: string;
  /** The entity as far as the field reads it, built from one referenced record. */
  readonly view: (ref: never) => unknown;
}

/** A path through other records for a field of entities E (see Via). */
export function via<E, R>(kind: string, index: string, view: (ref: R) => Partial<E>, lookup?: string): Via {
  return lookup === undefined ? { kind, index, view } : { kind, index, view, lookup };
}

/** A field declaration before it gets its name (what the builders return). */
export type FieldDef<E> = Omit<FieldSpec<E>, 'name' | 'prefix'>;

export interface FieldMap<E> {
  readonly resource: string;
  /** Unique id of an entity: the final sort tiebreaker. */
  readonly idOf: (entity: E) => string | number;
  /** Exact names and aliases. */
  readonly fields: ReadonlyMap<string, FieldSpec<E>>;
  /** Map fields by prefix (`attribute` for `attribute.<key>`). */
  readonly prefixes: ReadonlyMap<string, FieldSpec<E>>;
  /** Every accepted name for error messages, prefixes written as `attribute.<key>`. */
  readonly names: readonly string[];
}

export interface FieldMapDef<E> {
  readonly resource: string;
  readonly id: (entity: E) => string | number;
  readonly fields: Readonly<Record<string, FieldDef<E>>>;
  /** alias -> target field name, e.g. `{ tag: 'tag.name', type: 'type.key' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly prefixes?: Readonly<Record<string, FieldDef<E>>>;
}

type Getter<E> = FieldDef<E>['get'];
type Options = Pick<FieldDef<never>, 'index' | 'sortable' | 'join' | 'via' | 'plan'>;

export const text = <E>(get: Getter<E>, opts: Options = {}): FieldDef<E> => ({ kind: 'string', get, ...opts });
export const num = <E>(get: Getter<E>, opts: Options = {}): FieldDef<E> => ({ kind: 'number', get, ...opts });
export const bool = <E>(get: Getter<E>, opts: Options = {}): FieldDef<E> => ({ kind: 'boolean', get, ...opts });
/** Epoch milliseconds; accepts the `${NOW_TS}` / `${OVERDUE_TS}` placeholders in queries. */
export const timestamp = <E>(get: Getter<E>, opts: Options = {}): FieldDef<E> => ({ kind: 'timestamp', get, ...opts });
export const oneOf = <E>(values: readonly string[], get: Getter<E>, opts: Options = {}): FieldDef<E> =>
  ({ kind: 'enum', get, enumValues: values, ...opts });

export interface Audited {
  readonly createdAt: number;
  readonly createdBy: string;
  readonly lastModifiedAt: number;
  readonly lastModifiedBy: string;
}

/** hawkBit's "created/modified fields", present on nearly every resource. */
export function auditFields<E extends Audited>(): Record<string, FieldDef<E>> {
  return {
    createdat: timestamp((e: E) => e.createdAt),
    createdby: text((e: E) => e.createdBy),
    lastmodifiedat: timestamp((e: E) => e.lastModifiedAt),
    lastmodifiedby: text((e: E) => e.lastModifiedBy),
  };
}

/** Map lookup for prefix fields: the exact key first, then case-insensitively (hawkBit compares keys ignoring case). */
export function mapValue<V>(map: Readonly<Record<string, V>> | undefined, key: string | undefined): V | undefined {
  if (map === undefined || key === undefined) return undefined;
  if (Object.hasOwn(map, key)) return map[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(map)) if (k.toLowerCase() === lower) return map[k];
  return undefined;
}

const NAME = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)*$/;

/** Builds a resource's field map; throws a plain Error on a bad declaration (a programming error). */
export function defineFields<E>(def: FieldMapDef<E>): FieldMap<E> {
  const fields = new Map<string, FieldSpec<E>>();
  const prefixes = new Map<string, FieldSpec<E>>();
  const claim = (name: string): void => {
    if (!NAME.test(name)) throw new Error(`${def.resource}: field name '${name}' must be lower-case a-z0-9 and dots`);
    if (fields.has(name) || prefixes.has(name)) throw new Error(`${def.resource}: field '${name}' declared twice`);
  };
  for (const [name, d] of Object.entries(def.fields)) {
    claim(name);
    if (d.kind === 'enum' && (d.enumValues === undefined || d.enumValues.length === 0)) {
      throw new Error(`${def.resource}: enum field '${name}' needs enumValues`);
    }
    fields.set(name, { ...d, name });
  }
  for (const [alias, target] of Object.entries(def.aliases ?? {})) {
    claim(alias);
    const spec = fields.get(target);
    if (spec === undefined) throw new Error(`${def.resource}: alias '${alias}' points to unknown field '${target}'`);
    fields.set(alias, spec);
  }
  for (const [name, d] of Object.entries(def.prefixes ?? {})) {
    claim(name);
    prefixes.set(name, { ...d, name, prefix: true, sortable: false });
  }
  const names = [...fields.keys(), ...[...prefixes.keys()].map((p) => `${p}.<key>`)].sort();
  return { resource: def.resource, idOf: def.id, fields, prefixes, names };
}

export interface ResolvedField<E> {
  readonly spec: FieldSpec<E>;
  /** The map key for prefix fields, case as written. */
  readonly key?: string;
}

/** Finds a field by its query name (case-insensitive); undefined when there is no such field. */
export function resolveField<E>(map: FieldMap<E>, selector: string): ResolvedField<E> | undefined {
  const spec = map.fields.get(selector.toLowerCase());
  if (spec !== undefined) return { spec };
  const dot = selector.indexOf('.');
  if (dot <= 0 || dot === selector.length - 1) return undefined;
  const prefix = map.prefixes.get(selector.slice(0, dot).toLowerCase());
  return prefix === undefined ? undefined : { spec: prefix, key: selector.slice(dot + 1) };
}
