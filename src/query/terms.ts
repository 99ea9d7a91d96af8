/**
 * The terms a query is made of, types only: a field's declaration (its kind, index, path through other
 * records or planner of its own), the parsed comparisons and filters over such fields, their typed
 * operands, the clock a predicate is evaluated at, and the candidate plans of a field. Every file of
 * src/query builds on these; this one imports nothing of src/query, so they import each other in one
 * direction only.
 */
import type { Store, Tenant } from '../store/port.js';

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
export interface IndexSpec<N extends string = string> {
  /** One of the kind's declared index names (src/domain/kinds.ts): field maps are typed by their kind (src/query/fields.ts). */
  readonly name: N;
  readonly exact?: boolean;
  readonly unique?: boolean;
  /**
   * The keys holding the entities of one key the field's value gives, for a field whose value follows
   * from the indexed one (an action's `active` from its status): its candidates are the union of them.
   */
  readonly keys?: (key: string) => readonly string[];
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
export interface Via<N extends string = string> {
  readonly kind: string;
  readonly index: N;
  readonly lookup?: string;
  /** The entity as far as the field reads it, built from one referenced record. */
  readonly view: (ref: never) => unknown;
}

/** Canonical operators. `<` `<=` `>` `>=` become `=lt=` ...; `=is=` / `=not=` become `==` / `!=`. */
export type Op = '==' | '!=' | '=lt=' | '=le=' | '=gt=' | '=ge=' | '=in=' | '=out=';

export interface Comparison<E> {
  readonly kind: 'cmp';
  readonly field: FieldSpec<E>;
  /** Map key for prefix fields (`attribute.<key>`), case as written. */
  readonly key?: string;
  readonly op: Op;
  readonly values: readonly Operand[];
}

export type Filter<E> =
  | { readonly kind: 'and' | 'or'; readonly children: readonly Filter<E>[] }
  | Comparison<E>;

/** `${NOW_TS}` / `${OVERDUE_TS}`, resolved when the predicate is built (they depend on the clock). */
export interface Placeholder {
  readonly placeholder: 'NOW_TS' | 'OVERDUE_TS';
}

/**
 * A typed value: strings keep the text as written (wildcards and `\*` escapes included), numbers and
 * timestamps are numbers, enums are the canonical spelling. `''` means "null or empty" (with == / !=),
 * `null` means NULL (from `=is=null` / `=not=null`).
 */
export type Operand = string | number | boolean | null | Placeholder;

export interface EvalContext {
  /** Epoch ms substituted for `${NOW_TS}`. */
  readonly now: number;
  /** Epoch ms substituted for `${OVERDUE_TS}`: now - pollingTime - pollingOverdueTime. */
  readonly overdueTs: number;
}

type Reads = Pick<Store, 'getMany' | 'ids' | 'members' | 'count' | 'lookupMany' | 'pollRange'>;

/** Where a plan reads its candidates. */
export interface PlanSource {
  readonly store: Reads;
  readonly tenant: Tenant;
}

/** Candidates of one conjunct: how many (to pick the cheapest) and the ids. */
export interface CandidatePlan {
  readonly cost: number;
  readonly ids: () => Promise<readonly number[]>;
}

export type FieldPlanner = (source: PlanSource, c: Comparison<unknown>, ctx: EvalContext) => Promise<CandidatePlan | undefined> | undefined;
