/**
 * The list engine of every Management list (and of the scheduler's target queries): candidates from
 * the cheapest index plan of the filter, then, batch by batch, the records, what the filter and sort
 * need joined, and the filter, so only matches are held; then sort and page.
 *
 * Plans: only conjuncts of the top-level AND chain qualify (a candidate must satisfy each), with
 * positive operators. A field plans through its own index (`index`, see plan.ts), through the
 * records it names (`via`: `tag==beta` finds the tags named so, a handful of records, then the
 * targets under those tag ids), or by a planner of its own (`plan`). Among the usable plans the one
 * with the fewest candidates (counted) wins; the whole predicate still judges each candidate.
 * Without a plan the engine reads the ids under `within`, or every id of the kind (bounded).
 */
import type { MultiIndexOf } from '../domain/kinds.js';
import type { IdPage, Page } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';
import { resolveField, type FieldMap } from './fields.js';
import { parsePattern } from './glob.js';
import { isPlaceholder } from './operands.js';
import type { ListParams } from './paging.js';
import { planComparison } from './plan.js';
import { toPredicate } from './predicate.js';
import { queryEntities, type QueryResult } from './run.js';
import type { CandidatePlan, Comparison, EvalContext, Filter, PlanSource, Via } from './terms.js';

/** The ids under one key of a multi index of kind K (any index when K is a plain string). */
export interface Within<K extends string = string> {
  readonly index: MultiIndexOf<K>;
  readonly key: string;
}

export interface ListSpec<R, V> {
  /** The record kind listed. */
  readonly kind: string;
  readonly fields: FieldMap<V>;
  /**
   * The views the fields read, from a batch of records; `joins` names what the filter and sort
   * need (the fields' `join`). Without it the record is the view.
   */
  readonly join?: (records: readonly R[], joins: ReadonlySet<string>) => Promise<readonly V[]>;
  /** Only the ids under one key of a multi index of the kind (a tag's targets, a target's actions). */
  readonly within?: Within;
  /** Only these ids (a set's modules). */
  readonly ids?: readonly number[];
  /** Drops records that are not listed (soft-deleted ones, by `soft_deleted_mode`). */
  readonly visible?: (record: R) => boolean;
}

const BATCH = 1000;

export async function listRecords<R, V>(
  source: PlanSource, spec: ListSpec<R, V>, params: ListParams<V>, ctx: EvalContext,
): Promise<QueryResult<V>> {
  const { store, tenant } = source;
  const join = spec.join ?? (async (records: readonly R[]) => records as unknown as readonly V[]);
  const joins = joinsOf(spec.fields, params);
  const direct = storeOrder(spec, params);
  if (direct !== undefined) {
    // the store's own id order is the requested order: read one page
    const page = await idsOf(source, spec, direct);
    const records = await loadRecords<R>(store, tenant, spec.kind, page.ids);
    return { content: [...(await join(records.map((r) => r.value), joins))], total: page.total };
  }
  const ids = await candidates(source, spec, params, ctx);
  const keep = params.filter === undefined ? () => true : toPredicate(params.filter, ctx);
  const visible = spec.visible ?? (() => true);
  const matches: V[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const records = (await loadRecords<R>(store, tenant, spec.kind, ids.slice(i, i + BATCH))).map((r) => r.value).filter(visible);
    for (const v of await join(records, joins)) if (keep(v)) matches.push(v);
  }
  return queryEntities(matches, { offset: params.offset, limit: params.limit, sort: params.sort }, spec.fields, ctx);
}

/** The page to read in store order, when nothing but paging is asked and the sort is by id. */
function storeOrder<R, V>(spec: ListSpec<R, V>, params: ListParams<V>): Page | undefined {
  const [only, ...more] = params.sort;
  if (params.filter !== undefined || params.q !== undefined || spec.visible !== undefined || spec.ids !== undefined) return undefined;
  if (only === undefined || more.length > 0 || resolveField(spec.fields, only.field)?.spec.name !== 'id') return undefined;
  return { offset: params.offset, limit: params.limit, desc: only.dir === 'DESC' };
}

function idsOf<R, V>(source: PlanSource, spec: ListSpec<R, V>, page: Page): Promise<IdPage> {
  const { store, tenant } = source;
  const { within } = spec;
  return within === undefined ? store.ids(tenant, spec.kind, page) : store.members(tenant, spec.kind, within.index, within.key, page);
}

async function candidates<R, V>(
  source: PlanSource, spec: ListSpec<R, V>, params: ListParams<V>, ctx: EvalContext,
): Promise<readonly number[]> {
  const plan = params.filter === undefined ? undefined : await cheapestPlan(source, spec.kind, params.filter, ctx);
  const planned = plan === undefined ? undefined : await plan.ids();
  const bounds = spec.ids ?? (spec.within === undefined ? undefined : (await idsOf(source, spec, SCAN_ALL)).ids);
  if (planned === undefined) return bounds ?? (await idsOf(source, spec, SCAN_ALL)).ids;
  if (bounds === undefined) return planned;
  const allowed = new Set(planned);
  return bounds.filter((id) => allowed.has(id));
}

/** The plan with the fewest candidates, or undefined when no conjunct can use an index. */
async function cheapestPlan<V>(source: PlanSource, kind: string, filter: Filter<V>, ctx: EvalContext): Promise<CandidatePlan | undefined> {
  const conjuncts = filter.kind === 'and' ? filter.children : [filter];
  const plans = (await Promise.all(conjuncts.map(async (c) => (c.kind === 'cmp' ? planOne(source, kind, c, ctx) : undefined))))
    .filter((p): p is CandidatePlan => p !== undefined);
  return plans.length === 0 ? undefined : plans.reduce((a, b) => (b.cost < a.cost ? b : a));
}

async function planOne<V>(source: PlanSource, kind: string, c: Comparison<V>, ctx: EvalContext): Promise<CandidatePlan | undefined> {
  const { field } = c;
  if (field.plan !== undefined) return field.plan(source, c as Comparison<unknown>, ctx);
  if (field.via !== undefined) {
    if (c.op !== '==' && c.op !== '=in=') return undefined;
    if (c.values.some((v) => v === null || v === '' || isPlaceholder(v))) return undefined; // NULL is in no index
    return membersPlan(source, kind, field.via.index, await matchingRefs(source, field.via, c, ctx));
  }
  const own = planComparison(c);
  if (own === undefined) return undefined;
  if (own.unique) {
    const ids = async () => (await source.store.lookupMany(source.tenant, kind, own.index, own.keys)).filter((x) => x !== undefined);
    return { cost: own.keys.length, ids };
  }
  return membersPlan(source, kind, own.index, own.keys);
}

async function membersPlan(source: PlanSource, kind: string, index: string, keys: readonly string[]): Promise<CandidatePlan> {
  const { store, tenant } = source;
  const distinct = [...new Set(keys)];
  const counts = await Promise.all(distinct.map((k) => store.count(tenant, kind, index, k)));
  return {
    cost: counts.reduce((a, b) => a + b, 0),
    ids: async () => {
      const pages = await Promise.all(distinct.map((k) => store.members(tenant, kind, index, k, SCAN_ALL)));
      return distinct.length === 1 ? (pages[0]?.ids ?? []) : [...new Set(pages.flatMap((p) => p.ids))];
    },
  };
}

/**
 * Ids (as index keys) of the referenced records the comparison accepts, judged by the field's own
 * predicate on a view holding just that record. Literal values go through the unique `lookup`
 * index; patterns read the whole (small) kind.
 */
async function matchingRefs<V>(source: PlanSource, path: Via, c: Comparison<V>, ctx: EvalContext): Promise<string[]> {
  const { store, tenant } = source;
  const exact = path.lookup === undefined ? undefined : exactTexts(c);
  const ids = exact !== undefined && path.lookup !== undefined
    ? (await store.lookupMany(tenant, path.kind, path.lookup, exact.map((k) => k.toLowerCase()))).filter((x) => x !== undefined)
    : (await store.ids(tenant, path.kind, SCAN_ALL)).ids;
  const accept = toPredicate<V>(c, ctx);
  const view = path.view as (ref: unknown) => V;
  return (await loadRecords<unknown>(store, tenant, path.kind, ids)).filter((r) => accept(view(r.value))).map((r) => String(r.id));
}

/** The values as literal texts, or undefined when one is a wildcard pattern. */
function exactTexts<V>(c: Comparison<V>): string[] | undefined {
  const out: string[] = [];
  for (const v of c.values) {
    if (typeof v !== 'string') return undefined;
    if (c.op === '==') {
      const p = parsePattern(v);
      if (p.kind === 'glob') return undefined;
      out.push(p.text);
    } else out.push(v);
  }
  return out;
}

/** What the filter and sort ask to be joined (the `join` of each field they name). */
function joinsOf<V>(fields: FieldMap<V>, params: ListParams<V>): Set<string> {
  const joins = new Set<string>();
  const stack: Filter<V>[] = params.filter === undefined ? [] : [params.filter];
  while (stack.length > 0) {
    const f = stack.pop() as Filter<V>;
    if (f.kind === 'cmp') {
      if (f.field.join !== undefined) joins.add(f.field.join);
    } else stack.push(...f.children);
  }
  for (const s of params.sort) {
    const join = resolveField(fields, s.field)?.spec.join;
    if (join !== undefined) joins.add(join);
  }
  return joins;
}
