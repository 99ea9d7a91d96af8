/**
 * Target queries (`q=` of the target lists, target filters, auto-assignment): a target as its query
 * fields see it, the fields with their index paths, and the query itself. Used by the Management API
 * and by the scheduler, so it lives below both.
 * @see reference/hawkbit-api.md §5 (TargetFields)
 */
import { DS, TARGET_TAG, type DistributionSetRecord, type TagRecord } from '../domain/repository.js';
import { TARGET, UPDATE_STATUSES, type TargetRecord } from '../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../domain/targeting.js';
import type { PollRecord, Store, Tenant } from '../store/port.js';
import { SCAN_ALL, loadMap } from '../store/reads.js';
import { bool, defineFields, mapValue, num, oneOf, text, timestamp, via, type FieldDef } from './fields.js';
import { listRecords, type Within } from './list.js';
import { isPlaceholder } from './operands.js';
import type { ListParams } from './paging.js';
import type { QueryResult } from './run.js';
import type { CandidatePlan, EvalContext, FieldPlanner, Operand, PlanSource } from './terms.js';

/**
 * A target with what its query fields read of other records: its last poll, tag names, target type,
 * assigned and installed distribution sets. The joined parts are loaded only when a query or sort
 * names them, so they may be absent.
 */
export interface TargetView {
  readonly t: TargetRecord;
  readonly poll?: PollRecord | undefined;
  readonly tagNames?: readonly string[];
  readonly type?: TargetTypeRecord | undefined;
  readonly assigned?: DistributionSetRecord | undefined;
  readonly installed?: DistributionSetRecord | undefined;
}

/**
 * The address a target was last seen at: the newest of the poll's (written behind by DDI) and the
 * one stored on the record (Management API, DMF).
 */
export function addressOf(t: TargetRecord, poll: PollRecord | undefined): string | null {
  if (poll?.address != null && (t.address === null || poll.at >= t.lastModifiedAt)) return poll.address;
  return t.address;
}

const audit = (): Record<string, FieldDef<TargetView>> => ({
  createdat: timestamp((v: TargetView) => v.t.createdAt),
  createdby: text((v: TargetView) => v.t.createdBy),
  lastmodifiedat: timestamp((v: TargetView) => v.t.lastModifiedAt),
  lastmodifiedby: text((v: TargetView) => v.t.lastModifiedBy),
});

/** Last-poll comparisons use the poll-time index; inclusive bounds give a superset, the predicate decides the edges. */
const pollPlan: FieldPlanner = (source, c, ctx) => {
  if (c.values.length !== 1) return undefined;
  const at = resolveTime(c.values[0] as Operand, ctx);
  if (at === undefined) return undefined;
  let min = Number.NEGATIVE_INFINITY;
  let max = Number.POSITIVE_INFINITY;
  switch (c.op) {
    case '==': min = at; max = at; break;
    case '=lt=': case '=le=': max = at; break;
    case '=gt=': case '=ge=': min = at; break;
    default: return undefined;
  }
  const { store, tenant } = source;
  return store.pollRange(tenant, min, max, { offset: 0, limit: 1 }).then((first): CandidatePlan => ({
    cost: first.total,
    ids: async () => (await store.pollRange(tenant, min, max, SCAN_ALL)).ids,
  }));
};

function resolveTime(v: Operand, ctx: EvalContext): number | undefined {
  if (typeof v === 'number') return v;
  if (v !== null && isPlaceholder(v)) return v.placeholder === 'NOW_TS' ? ctx.now : ctx.overdueTs;
  return undefined;
}

const byTag = via(TARGET_TAG, 'tag', (r: TagRecord): Partial<TargetView> => ({ tagNames: [r.name] }), 'name');
const byTypeKey = via(TARGET_TYPE, 'targetType', (r: TargetTypeRecord): Partial<TargetView> => ({ type: r }), 'key');
const byTypeName = via(TARGET_TYPE, 'targetType', (r: TargetTypeRecord): Partial<TargetView> => ({ type: r }), 'name');
const byAssigned = via(DS, 'assignedDs', (r: DistributionSetRecord): Partial<TargetView> => ({ assigned: r }));
const byInstalled = via(DS, 'installedDs', (r: DistributionSetRecord): Partial<TargetView> => ({ installed: r }));

/**
 * TargetFields of reference §5. Index names are those of `targetSchema` (src/domain/target.ts);
 * the joined fields are planned through the joined entity's id.
 */
export const targetFields = defineFields<TargetView, typeof TARGET>({
  resource: 'target',
  id: (v) => v.t.id,
  fields: {
    controllerid: text((v) => v.t.controllerId, { index: { name: 'controllerId', unique: true } }),
    name: text((v) => v.t.name),
    description: text((v) => v.t.description),
    ...audit(),
    updatestatus: oneOf(UPDATE_STATUSES, (v) => v.t.updateStatus, { index: { name: 'updateStatus', exact: true } }),
    ipaddress: text((v) => addressOf(v.t, v.poll), { join: 'poll' }),
    group: text((v) => v.t.group),
    'assignedds.name': text((v) => v.assigned?.name ?? null, { join: 'ds', via: byAssigned }),
    'assignedds.version': text((v) => v.assigned?.version ?? null, { join: 'ds', via: byAssigned }),
    'installedds.name': text((v) => v.installed?.name ?? null, { join: 'ds', via: byInstalled }),
    'installedds.version': text((v) => v.installed?.version ?? null, { join: 'ds', via: byInstalled }),
    'tag.name': text((v) => v.tagNames ?? [], { join: 'tags', via: byTag }),
    lastcontrollerrequestat: timestamp((v) => v.poll?.at ?? null, { join: 'poll', plan: pollPlan }),
    'type.id': num((v) => v.t.targetType, { index: { name: 'targetType', exact: true } }),
    'type.key': text((v) => v.type?.key ?? null, { join: 'type', via: byTypeKey }),
    'type.name': text((v) => v.type?.name ?? null, { join: 'type', via: byTypeName }),
    autoconfirm: bool((v) => v.t.autoConfirm !== null),
  },
  aliases: {
    id: 'controllerid',
    tag: 'tag.name',
    assignedds: 'assignedds.name',
    installedds: 'installedds.name',
    type: 'type.key',
    targettype: 'type.key',
    'targettype.id': 'type.id',
    'targettype.key': 'type.key',
    'targettype.name': 'type.name',
  },
  prefixes: {
    attribute: text((v, key) => mapValue(v.t.attributes, key) ?? null),
    metadata: text((v, key) => mapValue(v.t.metadata, key) ?? null),
  },
});

export const DEFAULT_TARGET_SORT = [{ field: 'controllerid', dir: 'ASC' as const }];

/** Where target queries read: the plan reads and the write-behind poll records. */
export interface TargetSource extends PlanSource {
  readonly store: PlanSource['store'] & Pick<Store, 'getPolls'>;
}

/** Views of the records with the joined parts loaded (each joined kind in a few round trips). */
export async function joinTargets(
  source: TargetSource, records: readonly TargetRecord[], joins: ReadonlySet<string>,
): Promise<TargetView[]> {
  if (joins.size === 0) return records.map((t) => ({ t }));
  const { store, tenant } = source;
  const polls = joins.has('poll') ? await store.getPolls(tenant, records.map((t) => t.id)) : undefined;
  const load = <R>(join: string, kind: string, ids: (number | null)[]) =>
    (joins.has(join) ? loadMap<R>(store, tenant, kind, ids) : undefined);
  const tags = await load<TagRecord>('tags', TARGET_TAG, records.flatMap((t) => t.tags));
  const types = await load<TargetTypeRecord>('type', TARGET_TYPE, records.map((t) => t.targetType));
  const sets = await load<DistributionSetRecord>('ds', DS, records.flatMap((t) => [t.assignedDs, t.installedDs]));
  return records.map((t, i) => ({
    t,
    poll: polls?.[i],
    tagNames: tags === undefined ? undefined : t.tags.map((id) => tags.get(id)?.name).filter((n) => n !== undefined),
    type: t.targetType === null ? undefined : types?.get(t.targetType),
    assigned: t.assignedDs === null ? undefined : sets?.get(t.assignedDs),
    installed: t.installedDs === null ? undefined : sets?.get(t.installedDs),
  }));
}

export interface TargetQuery extends ListParams<TargetView> {
  /** Only targets under this key of a target multi index (`tag`, `assignedDs`, `installedDs`, ...). */
  readonly within?: Within<typeof TARGET> | undefined;
  /** Only these target ids (a rollout group's targets). */
  readonly ids?: readonly number[] | undefined;
}

/** A page of targets matching the query (the list engine with the target fields and joins). */
export async function queryTargets(
  store: TargetSource['store'], tenant: Tenant, q: TargetQuery, ctx: EvalContext,
): Promise<QueryResult<TargetRecord>> {
  const source = { store, tenant };
  const spec = {
    kind: TARGET, fields: targetFields,
    join: (records: readonly TargetRecord[], joins: ReadonlySet<string>) => joinTargets(source, records, joins),
    ...(q.within === undefined ? {} : { within: q.within }),
    ...(q.ids === undefined ? {} : { ids: q.ids }),
  };
  const result = await listRecords(source, spec, q, ctx);
  return { content: result.content.map((v) => v.t), total: result.total };
}
