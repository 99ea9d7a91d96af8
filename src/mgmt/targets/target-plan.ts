import { DS, TARGET_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import { TARGET } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import { isPlaceholder, parsePattern, toPredicate, type Comparison, type EvalContext, type Filter, type Operand } from '../../query/index.js';
import type { Store, Tenant } from '../../store/port.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import type { TargetView } from './target-fields.js';

/**
 * Index plans for target queries: which store index supplies the candidates of a filter, so that an
 * indexed query never reads every target. Only conjuncts of the top-level AND chain qualify, with
 * positive operators. Besides the record's own indexes (controller id, update status, type id), the
 * joined fields are planned through the joined entity: `tag==beta` finds the ids of the tags named
 * like that (a handful of records), then the targets under those tag ids. Last-poll comparisons use
 * the poll-time index. Among the usable plans the one with the fewest candidates (counted) wins; the
 * caller still applies the whole predicate to the candidates.
 */
interface Plan {
  readonly cost: number;
  readonly ids: () => Promise<readonly number[]>;
}

const ALL = { offset: 0, limit: SCAN_LIMIT };
const BATCH = 1000;

/** Candidate target ids, or undefined when no index applies (the caller scans). */
export async function planCandidates(store: Store, tenant: Tenant, filter: Filter<TargetView>, ctx: EvalContext): Promise<readonly number[] | undefined> {
  const conjuncts = filter.kind === 'and' ? filter.children : [filter];
  const plans = (await Promise.all(conjuncts.map((c) => (c.kind === 'cmp' ? planOne(store, tenant, c, ctx) : undefined))))
    .filter((p): p is Plan => p !== undefined);
  if (plans.length === 0) return undefined;
  const best = plans.reduce((a, b) => (b.cost < a.cost ? b : a));
  return best.ids();
}

async function planOne(store: Store, tenant: Tenant, c: Comparison<TargetView>, ctx: EvalContext): Promise<Plan | undefined> {
  if (c.field.name === 'lastcontrollerrequestat') return pollPlan(store, tenant, c, ctx);
  if (c.op !== '==' && c.op !== '=in=') return undefined;
  if (c.values.some((v) => v === null || v === '' || isPlaceholder(v))) return undefined; // NULL is in no index
  switch (c.field.name) {
    case 'controllerid': {
      const keys = exactTexts(c);
      if (keys === undefined) return undefined;
      const lower = [...new Set(keys.map((k) => k.toLowerCase()))];
      return { cost: lower.length, ids: async () => (await store.lookupMany(tenant, TARGET, 'controllerId', lower)).filter((x): x is number => x !== undefined) };
    }
    case 'updatestatus':
      return membersPlan(store, tenant, 'updateStatus', c.values.map(String));
    case 'type.id':
      return membersPlan(store, tenant, 'targetType', c.values.filter((v) => Number.isSafeInteger(v)).map(String));
    case 'tag.name':
      return membersPlan(store, tenant, 'tag', await matchingRefs<TagRecord>(store, tenant, TARGET_TAG, c, ctx, 'name', (r) => ({ tagNames: [r.name] })));
    case 'type.key':
    case 'type.name': {
      const index = c.field.name === 'type.key' ? 'key' : 'name';
      return membersPlan(store, tenant, 'targetType', await matchingRefs<TargetTypeRecord>(store, tenant, TARGET_TYPE, c, ctx, index, (r) => ({ type: r })));
    }
    case 'assignedds.name':
    case 'assignedds.version':
      return membersPlan(store, tenant, 'assignedDs', await matchingRefs<DistributionSetRecord>(store, tenant, DS, c, ctx, undefined, (r) => ({ assigned: r })));
    case 'installedds.name':
    case 'installedds.version':
      return membersPlan(store, tenant, 'installedDs', await matchingRefs<DistributionSetRecord>(store, tenant, DS, c, ctx, undefined, (r) => ({ installed: r })));
    default:
      return undefined;
  }
}

/** The values as literal texts, or undefined when one is a wildcard pattern. */
function exactTexts(c: Comparison<TargetView>): string[] | undefined {
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

async function membersPlan(store: Store, tenant: Tenant, index: string, keys: readonly string[]): Promise<Plan> {
  const distinct = [...new Set(keys)];
  const counts = await Promise.all(distinct.map((k) => store.count(tenant, TARGET, index, k)));
  return {
    cost: counts.reduce((a, b) => a + b, 0),
    ids: async () => {
      const pages = await Promise.all(distinct.map((k) => store.members(tenant, TARGET, index, k, ALL)));
      return distinct.length === 1 ? (pages[0]?.ids ?? []) : [...new Set(pages.flatMap((p) => p.ids))];
    },
  };
}

/**
 * Ids of the joined entities (tags, types, sets) the comparison accepts, judged by the target
 * field's own predicate on a view holding just that entity. Literal names go through the entity's
 * unique index; patterns read the whole (small) kind.
 */
async function matchingRefs<R extends { readonly id: number }>(
  store: Store, tenant: Tenant, kind: string, c: Comparison<TargetView>, ctx: EvalContext,
  uniqueIndex: string | undefined, view: (r: R) => Partial<TargetView>,
): Promise<string[]> {
  const exact = uniqueIndex === undefined ? undefined : exactTexts(c);
  let ids: readonly number[];
  if (exact !== undefined && uniqueIndex !== undefined) {
    ids = (await store.lookupMany(tenant, kind, uniqueIndex, exact.map((k) => k.toLowerCase()))).filter((x): x is number => x !== undefined);
  } else {
    ids = (await store.ids(tenant, kind, ALL)).ids;
  }
  const accept = toPredicate<TargetView>(c, ctx);
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    for (const r of await store.getMany<R>(tenant, kind, ids.slice(i, i + BATCH))) {
      if (r !== undefined && accept(view(r.value) as TargetView)) out.push(String(r.id));
    }
  }
  return out;
}

function pollPlan(store: Store, tenant: Tenant, c: Comparison<TargetView>, ctx: EvalContext): Promise<Plan | undefined> | undefined {
  if (c.values.length !== 1) return undefined;
  const at = resolveTime(c.values[0] ?? null, ctx);
  if (at === undefined) return undefined;
  // inclusive bounds give a superset; the predicate decides the edges
  let min = Number.NEGATIVE_INFINITY;
  let max = Number.POSITIVE_INFINITY;
  switch (c.op) {
    case '==': min = at; max = at; break;
    case '=lt=': case '=le=': max = at; break;
    case '=gt=': case '=ge=': min = at; break;
    default: return undefined;
  }
  return store.pollRange(tenant, min, max, { offset: 0, limit: 1 }).then((first) => ({
    cost: first.total,
    ids: async () => (await store.pollRange(tenant, min, max, ALL)).ids,
  }));
}

function resolveTime(v: Operand, ctx: EvalContext): number | undefined {
  if (typeof v === 'number') return v;
  if (v !== null && isPlaceholder(v)) return v.placeholder === 'NOW_TS' ? ctx.now : ctx.overdueTs;
  return undefined;
}
