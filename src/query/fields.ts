/**
 * Declarative FIQL field maps: for each resource, which `q=` / `sort=` field names exist, what kind of
 * value they hold and how to read it from an entity. Names are hawkBit's query-field enum names in lower
 * case; dotted sub-attributes (`assignedds.name`) are plain names; map fields (`attribute.<key>`,
 * `metadata.<key>`) are prefixes; default sub-attributes (`tag` == `tag.name`) are aliases.
 * @see reference/hawkbit-api.md section 5
 */
import type { MultiIndexOf, UniqueIndexOf } from '../domain/kinds.js';
import type { FieldSpec, IndexSpec, Via } from './terms.js';

/**
 * A path through other records for a field (see Via): `lookup` is a unique index of `kind`, checked
 * against its declared names here; `index` one of the listed kind, checked by `defineFields`; `view`
 * builds the entity's part the field reads from one referenced record.
 */
export function via<K extends string, N extends string, R, E>(
  kind: K, index: N, view: (ref: R) => Partial<E>, lookup?: UniqueIndexOf<K>,
): Via<N> {
  return lookup === undefined ? { kind, index, view } : { kind, index, view, lookup };
}

/** The index names a field map of kind K may use: the kind's unique and multi indexes (none for `never`). */
export type IndexNameOf<K extends string> = UniqueIndexOf<K> | MultiIndexOf<K>;

/**
 * A field declaration before it gets its name (what the builders return). `N` is the index names it
 * may use: a builder takes the name it is given, and `defineFields` checks it against the kind's.
 */
export type FieldDef<E, N extends string = never> = Omit<FieldSpec<E>, 'name' | 'prefix' | 'index' | 'via'> & {
  readonly index?: IndexSpec<N>;
  readonly via?: Via<N>;
};

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

export interface FieldMapDef<E, N extends string> {
  readonly resource: string;
  readonly id: (entity: E) => string | number;
  readonly fields: Readonly<Record<string, FieldDef<E, N>>>;
  /** alias -> target field name, e.g. `{ tag: 'tag.name', type: 'type.key' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly prefixes?: Readonly<Record<string, FieldDef<E, N>>>;
}

type Getter<E> = FieldDef<E>['get'];
type Options<N extends string> = Pick<FieldDef<never, N>, 'index' | 'sortable' | 'join' | 'via' | 'plan'>;

export const text = <E, N extends string = never>(get: Getter<E>, opts: Options<N> = {}): FieldDef<E, N> => ({ kind: 'string', get, ...opts });
export const num = <E, N extends string = never>(get: Getter<E>, opts: Options<N> = {}): FieldDef<E, N> => ({ kind: 'number', get, ...opts });
export const bool = <E, N extends string = never>(get: Getter<E>, opts: Options<N> = {}): FieldDef<E, N> => ({ kind: 'boolean', get, ...opts });
/** Epoch milliseconds; accepts the `${NOW_TS}` / `${OVERDUE_TS}` placeholders in queries. */
export const timestamp = <E, N extends string = never>(get: Getter<E>, opts: Options<N> = {}): FieldDef<E, N> =>
  ({ kind: 'timestamp', get, ...opts });
export const oneOf = <E, N extends string = never>(values: readonly string[], get: Getter<E>, opts: Options<N> = {}): FieldDef<E, N> =>
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

/**
 * Builds the field map of a resource listing kind K (`defineFields<TargetView, typeof TARGET>`): an
 * index a field names that K does not declare is a compile error (`never` for a list of no kind, such
 * as metadata entries: no index). Throws a plain Error on a bad declaration (a programming error).
 */
export function defineFields<E, K extends string>(def: FieldMapDef<E, IndexNameOf<NoInfer<K>>>): FieldMap<E> {
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
