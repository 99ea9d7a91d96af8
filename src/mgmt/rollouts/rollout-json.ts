import { DS, DS_TYPE, type DistributionSetRecord, type DistributionSetTypeRecord } from '../../domain/repository.js';
import {
  ROLLOUT_STATUSES, type ROLLOUT, type ROLLOUT_GROUP, type Conditions, type RolloutGroupRecord, type RolloutRecord,
} from '../../domain/rollout.js';
import { groupCounterKey, perStatus, rolloutCounterKey } from '../../domain/rollout-counts.js';
import type { Request } from '../../http/types.js';
import { auditFields, defineFields, num, oneOf, text, via, type Audited, type FieldDef } from '../../query/index.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import { auditJson, link, type Link } from '../kit/hal.js';
import { safetyJson } from './rollout-safety-body.js';

/**
 * Rollout and rollout group JSON and their query fields (reference §3.7, §5). The per-status counts
 * are read from the store counters on every request, so they are exact (hawkBit caches them 10 s).
 */

/** A rollout as its query fields see it, with its distribution set when a query names one of its fields. */
export interface RolloutView {
  readonly r: RolloutRecord;
  readonly ds?: DistributionSetRecord | undefined;
  readonly dsTypeKey?: string | undefined;
}

function auditOf<V>(pick: (v: V) => Audited): Record<string, FieldDef<V>> {
  const out: Record<string, FieldDef<V>> = {};
  for (const [name, def] of Object.entries(auditFields<Audited>())) out[name] = { ...def, get: (v: V) => def.get(pick(v)) };
  return out;
}

const bySet = via(DS, 'ds', (d: DistributionSetRecord): Partial<RolloutView> => ({ ds: d }));

/** RolloutFields (reference §5). */
export const rolloutFields = defineFields<RolloutView, typeof ROLLOUT>({
  resource: 'rollout',
  id: (v) => v.r.id,
  fields: {
    id: num((v) => v.r.id),
    name: text((v) => v.r.name),
    description: text((v) => v.r.description),
    status: oneOf(ROLLOUT_STATUSES, (v) => v.r.status, { index: { name: 'status', exact: true } }),
    'distributionset.id': num((v) => v.r.ds, { index: { name: 'ds', exact: true } }),
    'distributionset.name': text((v) => v.ds?.name ?? null, { join: 'ds', via: bySet }),
    'distributionset.version': text((v) => v.ds?.version ?? null, { join: 'ds', via: bySet }),
    'distributionset.type': text((v) => v.dsTypeKey ?? null, { join: 'ds' }),
    ...auditOf((v) => v.r),
  },
  aliases: { distributionset: 'distributionset.id' },
});

/** RolloutGroupFields (reference §5). */
export const groupFields = defineFields<RolloutGroupRecord, typeof ROLLOUT_GROUP>({
  resource: 'rolloutgroup',
  id: (g) => g.id,
  fields: {
    id: num((g) => g.id),
    name: text((g) => g.name),
    description: text((g) => g.description),
    ...auditFields<RolloutGroupRecord>(),
  },
});

/** The views the rollout fields read (sets loaded only when named). */
export async function joinRollouts(
  store: Store, tenant: Tenant, rollouts: readonly RolloutRecord[], joins: ReadonlySet<string>,
): Promise<RolloutView[]> {
  if (!joins.has('ds')) return rollouts.map((r) => ({ r }));
  const sets = await loadMap<DistributionSetRecord>(store, tenant, DS, rollouts.map((r) => r.ds));
  const types = await loadMap<DistributionSetTypeRecord>(store, tenant, DS_TYPE, [...sets.values()].map((d) => d.type));
  return rollouts.map((r) => {
    const ds = sets.get(r.ds);
    return { r, ds, dsTypeKey: ds === undefined ? undefined : types.get(ds.type)?.key };
  });
}

export const rolloutPath = (id: number): string => `/rest/v1/rollouts/${id}`;

/**
 * The condition and action names in upper case (THRESHOLD, NEXTGROUP, PAUSE), as Jackson writes the enums of
 * hawkBit's MgmtRolloutCondition / MgmtRolloutSuccessAction / MgmtRolloutErrorAction; requests may use either case.
 */
function conditionsJson(c: Conditions): object {
  return {
    successCondition: { condition: c.successCondition.condition.toUpperCase(), expression: c.successCondition.expression },
    successAction: { action: c.successAction.action.toUpperCase(), expression: c.successAction.expression },
    errorCondition: { condition: c.errorCondition.condition.toUpperCase(), expression: c.errorCondition.expression },
    errorAction: { action: c.errorAction.action.toUpperCase(), expression: c.errorAction.expression },
  };
}

/** Rollout JSON for each record; `full` adds the per-status counts, the number of groups and all links. */
export async function renderRollouts(
  store: Store, tenant: Tenant, req: Request, rollouts: readonly RolloutRecord[], full: boolean,
): Promise<object[]> {
  const counts = full ? await store.counters(tenant, rollouts.map((r) => rolloutCounterKey(r.id))) : [];
  const sets = full
    ? await loadMap<DistributionSetRecord>(store, tenant, DS, rollouts.map((r) => r.ds))
    : new Map<number, DistributionSetRecord>();
  return rollouts.map((r, i) => {
    const self = rolloutPath(r.id);
    const out: Record<string, unknown> = {
      ...auditJson(r), name: r.name, description: r.description ?? undefined, targetFilterQuery: r.targetFilterQuery,
      distributionSetId: r.ds, status: r.status, totalTargets: r.totalTargets, type: r.actionType, forcetime: r.forceTime,
      deleted: r.deleted, dynamic: r.dynamic === true, weight: r.weight ?? undefined, id: r.id, ...safetyJson(r),
      // the release controls as sent (absent: none, and the reply is hawkBit's)
      ...r.release,
    };
    const links: Record<string, Link> = { self: link(req, self) };
    if (full) {
      out['totalTargetsPerStatus'] = perStatus(counts[i] ?? {}, r.totalTargets, r.actionType === 'downloadonly');
      out['totalGroups'] = r.groups.length;
      if (r.startAt !== null) out['startAt'] = r.startAt;
      if (r.approvalRemark !== null) out['approvalRemark'] = r.approvalRemark;
      if (r.approveDecidedBy !== null) out['approveDecidedBy'] = r.approveDecidedBy;
      for (const op of ['start', 'pause', 'resume', 'triggerNextGroup', 'approve', 'deny'] as const) links[op] = link(req, `${self}/${op}`);
      links['groups'] = link(req, `${self}/deploygroups?offset=0&limit=50`);
      // named `name:version`, as hawkBit's MgmtRolloutMapper names it
      const set = sets.get(r.ds);
      links['distributionset'] = link(req, `/rest/v1/distributionsets/${r.ds}`, set === undefined ? undefined : `${set.name}:${set.version}`);
    }
    out['_links'] = links;
    return out;
  });
}

/** Rollout group JSON; `full` adds the per-status counts. `confirmationRequired` only while the confirmation flow is on. */
export async function renderGroups(
  store: Store, tenant: Tenant, req: Request, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[],
  full: boolean, confirmationFlow: boolean,
): Promise<object[]> {
  const counts = full ? await store.counters(tenant, groups.map((g) => groupCounterKey(g.id))) : [];
  return groups.map((g, i) => {
    const out: Record<string, unknown> = {
      ...auditJson(g), name: g.name, description: g.description ?? undefined, id: g.id, status: g.status,
      targetFilterQuery: g.targetFilterQuery ?? '', targetPercentage: g.targetPercentage,
      ...(confirmationFlow ? { confirmationRequired: g.confirmationRequired } : {}),
      dynamic: g.dynamic === true, totalTargets: g.totalTargets, ...conditionsJson(g),
      // a soaking group (the rollout's soak): when its successors may start
      ...(g.soakUntil === undefined ? {} : { soakUntil: g.soakUntil }),
    };
    if (full) out['totalTargetsPerStatus'] = perStatus(counts[i] ?? {}, g.totalTargets, rollout.actionType === 'downloadonly');
    out['_links'] = { self: link(req, `${rolloutPath(rollout.id)}/deploygroups/${g.id}`) };
    return out;
  });
}
