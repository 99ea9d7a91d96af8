import { assignableSet, isCompatible, lockImplicitly, targetTypesOf } from '../../actors/distribution-sets.js';
import type { ActorEditor } from '../../actors/roles.js';
import { WEIGHT_IF_ABSENT } from '../../domain/action.js';
import { created } from '../../domain/audit.js';
import { AppError, badRequest, notFound } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import {
  DEFAULT_CONDITIONS, MEMBERS_CHUNK, ROLLOUT, ROLLOUT_GROUP, ROLLOUT_MEMBERS,
  type RolloutGroupRecord, type RolloutMembersRecord, type RolloutRecord,
} from '../../domain/rollout.js';
import { dynamicGroup } from '../../domain/rollout-dynamic.js';
import { releaseControlsOf } from '../../domain/rollout-release.js';
import { amountGroupDefs, distribute, groupQuery, orderTargets, type GroupDef } from '../../domain/rollout-plan.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { parseFilter } from '../../query/filter.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../query/targets.js';
import { actionsOfRollout } from '../../store/named-reads.js';
import type { Tenant, Write } from '../../store/port.js';
import { SCAN_LIMIT, loadRecords } from '../../store/reads.js';
import type { KitDeps } from '../kit/deps.js';
import { evalContext } from '../kit/list.js';
import { actionTypeOf, conditionsOf, type CreateRolloutBody } from './rollout-body.js';
import { safetyOf } from './rollout-safety-body.js';
import { withSeed } from './release-body.js';

export type RolloutCreateDeps = KitDeps & {
  readonly runtime: ActorEditor;
  readonly quotas: Pick<Quotas, 'maxRolloutGroupsPerRollout' | 'maxTargetsPerRolloutGroup'>;
};

/** What the caller may do, for the rules that depend on it. */
export interface Creator {
  readonly by: string;
  /** Holds HANDLE_ROLLOUT: may set `startAt`. */
  readonly mayHandle: boolean;
  /** Holds APPROVE_ROLLOUT: the rollout needs no approval. */
  readonly mayApprove: boolean;
}

/** The targets of a retry rollout: `failedrollout==<id>` (reference §4.6, §5). */
const FAILED_ROLLOUT = /^failedrollout==([0-9]+)$/;

/**
 * POST /rest/v1/rollouts (reference §3.7, §4.6, §4.7): checks the request, divides the targets that
 * match the filter now (and the set's type takes) over the groups, and writes the rollout (creating),
 * its groups and their members in one commit through the runtime; the engine moves it on to ready.
 * A filter that matches no target the set's type takes is refused with 400 constraintViolation
 * "Rollout does not match any existing targets" (a retry without failed targets: "No failed targets
 * in Rollout"), as every hawkBit release does, unless the rollout is of dynamic groups only
 * (`amountGroups: 0`). A dynamic rollout gets its first dynamic group after the static ones
 * (rollout-dynamic.ts); the engine fills it while the rollout runs.
 */
export async function createRollout(
  deps: RolloutCreateDeps, tenant: Tenant, body: CreateRolloutBody, creator: Creator,
): Promise<RolloutRecord> {
  const dynamic = body.dynamic === true;
  const template = body.dynamicGroupTemplate ?? null;
  // hawkBit's ValidationExceptions (MgmtRolloutResource, JpaRolloutManagement): 400 constraintViolation
  if (body.groups != null && dynamic) throw new AppError('CONSTRAINT_VIOLATION', 'Dynamic rollouts are not supported with groups');
  if (body.amountGroups != null && body.groups != null) {
    throw new AppError('CONSTRAINT_VIOLATION', "If 'group' is set the 'amountGroups' must not be set in the request");
  }
  const count = body.groups?.length ?? body.amountGroups ?? 1;
  if (count > deps.quotas.maxRolloutGroupsPerRollout) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: ${count} groups requested; at most ${deps.quotas.maxRolloutGroupsPerRollout} groups per rollout are allowed.`);
  }
  if (body.groups != null && count < 1) throw new AppError('CONSTRAINT_VIOLATION', 'body.groups: The amount of groups cannot be 0');
  if (count < 1 && template === null) {
    throw new AppError('CONSTRAINT_VIOLATION', 'body.amountGroups: When amount of groups is 0, the rollouts shall be dynamic and a dynamic group template must be provided');
  }
  if (template !== null && !dynamic) throw new AppError('CONSTRAINT_VIOLATION', 'Dynamic group template is only allowed for dynamic rollouts');
  // hawkBit takes a missing targetCount as an error of its own and 0 or less as 1: refused here
  if (template !== null && (template.targetCount == null || template.targetCount < 1)) {
    throw new AppError('CONSTRAINT_VIOLATION', `body.dynamicGroupTemplate.targetCount: must be at least 1, got ${template.targetCount ?? 'none'}`);
  }
  // Action.WEIGHT_MIN..WEIGHT_MAX, checked by bean validation in hawkBit
  if (body.weight != null && (body.weight < 0 || body.weight > WEIGHT_IF_ABSENT)) {
    throw new AppError('CONSTRAINT_VIOLATION', `body.weight: must be between 0 and 1000, got ${body.weight}`);
  }
  if (body.targetFilterQuery == null) throw new AppError('RSQL_SYNTAX', 'body.targetFilterQuery: a target filter query is required');
  const query = body.targetFilterQuery;
  const retryOf = FAILED_ROLLOUT.exec(query.trim());
  if (retryOf === null) parseFilter(query, targetFields);
  if (body.distributionSetId == null) throw badRequest('body.distributionSetId: required');
  const actionType = actionTypeOf(body.type);
  if (body.startAt != null && !creator.mayHandle) throw new AppError('INSUFFICIENT_PERMISSION', 'startAt needs the permission HANDLE_ROLLOUT');
  const conditions = conditionsOf(body, 'body');
  const release = releaseControlsOf(withSeed(body), { now: deps.now(), startAt: body.startAt });
  const cfg = await deps.tenantConfig.view(tenant);
  const confirmationRequired = body.confirmationRequired ?? cfg.bool('user.confirmation.flow.enabled');
  const defs: GroupDef[] = body.groups == null
    ? amountGroupDefs(count, conditions, confirmationRequired)
    : body.groups.map((g, i): GroupDef => {
      if (g.targetPercentage == null) throw badRequest(`body.groups[${i}].targetPercentage: required, 1..100`);
      if (g.targetPercentage < 1 || g.targetPercentage > 100) {
        throw new AppError('CONSTRAINT_VIOLATION', `body.groups[${i}].targetPercentage: Target percentage has to be between 1 and 100, got ${g.targetPercentage}`);
      }
      if (g.targetFilterQuery != null && g.targetFilterQuery.trim() !== '') parseFilter(g.targetFilterQuery, targetFields);
      return {
        name: g.name, description: g.description ?? null,
        targetFilterQuery: g.targetFilterQuery == null || g.targetFilterQuery.trim() === '' ? null : g.targetFilterQuery,
        targetPercentage: g.targetPercentage, confirmationRequired: g.confirmationRequired ?? confirmationRequired,
        ...conditionsOf(g, `body.groups[${i}]`, conditions),
      };
    });
  const ds = await assignableSet(deps.store, tenant, body.distributionSetId);
  const safety = await safetyOf(deps.store, tenant, body);

  // the targets: matching now (so created before the rollout) and taking the set's type
  const matching = retryOf === null
    ? await queryAll(deps, tenant, query)
    : await failedTargets(deps, tenant, Number(retryOf[1]));
  const types = await targetTypesOf(deps.store, tenant, matching);
  const targets = matching.filter((t) => isCompatible(types, t, ds));
  if (targets.length === 0 && count > 0) {
    throw new AppError('CONSTRAINT_VIOLATION', retryOf === null ? 'Rollout does not match any existing targets' : 'No failed targets in Rollout');
  }
  const groupSets = await Promise.all(defs.map(async (d) =>
    (d.targetFilterQuery === null || retryOf !== null
      ? undefined
      : new Set((await queryAll(deps, tenant, groupQuery(query, d.targetFilterQuery))).map((t) => t.id)))));
  const ordered = orderTargets(targets, release?.groupOrder, (t, name) => t.attributes[name]);
  const split = distribute(ordered, defs, (g, t) => groupSets[g]?.has(t.id) ?? true);
  if (split.left > 0) {
    throw new AppError('CONSTRAINT_VIOLATION', `Rollout groups don't match all targets: ${split.left} of ${targets.length} targets are in no group`);
  }
  const largest = Math.max(0, ...split.groups.map((g) => g.length));
  if (largest > deps.quotas.maxTargetsPerRolloutGroup) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: a group would hold ${largest} targets; at most ${deps.quotas.maxTargetsPerRolloutGroup} targets per rollout group are allowed.`);
  }

  const now = deps.now();
  const audit = created(creator.by, now);
  const id = await deps.store.nextIds(tenant, ROLLOUT, 1);
  const firstGroup = await deps.store.nextIds(tenant, ROLLOUT_GROUP, defs.length + (dynamic ? 1 : 0));
  const chunks = split.groups.map((g) => Math.ceil(g.length / MEMBERS_CHUNK));
  const total = chunks.reduce((a, b) => a + b, 0);
  let memberId = total === 0 ? 0 : await deps.store.nextIds(tenant, ROLLOUT_MEMBERS, total);
  const groups = defs.map((d, i): RolloutGroupRecord => ({
    id: firstGroup + i, rollout: id, name: d.name, description: d.description, status: 'creating',
    targetFilterQuery: d.targetFilterQuery, targetPercentage: d.targetPercentage, confirmationRequired: d.confirmationRequired,
    totalTargets: split.groups[i]?.length ?? 0, parent: i === 0 ? null : firstGroup + i - 1, successHandled: false,
    successCondition: d.successCondition, successAction: d.successAction, errorCondition: d.errorCondition, errorAction: d.errorAction,
    ...audit,
  }));
  if (dynamic) {
    // the first dynamic group after the static ones: the template's size, else the last static group's
    const size = template?.targetCount ?? split.groups.at(-1)?.length ?? 1;
    groups.push(dynamicGroup(groups.at(-1) ?? null, {
      id: firstGroup + defs.length, rollout: id, index: defs.length + 1, suffix: template?.nameSuffix ?? '', size,
      confirmationRequired, conditions, status: 'creating', audit,
    }));
  }
  const members: Write[] = [];
  split.groups.forEach((g, i) => {
    for (let at = 0; at < g.length; at += MEMBERS_CHUNK) {
      const record: RolloutMembersRecord = {
        id: memberId, rollout: id, group: firstGroup + i, targets: g.slice(at, at + MEMBERS_CHUNK).map((t) => t.id),
      };
      members.push({ kind: ROLLOUT_MEMBERS, id: memberId++, expect: 0, after: record });
    }
  });
  const rollout: RolloutRecord = {
    id, name: body.name, description: body.description ?? null, targetFilterQuery: query, ds: ds.id, status: 'creating',
    actionType, forceTime: body.forcetime ?? 0, startAt: body.startAt ?? null,
    weight: body.weight ?? WEIGHT_IF_ABSENT, deleted: false, totalTargets: targets.length, groups: groups.map((g) => g.id),
    approvalNeeded: cfg.bool('rollout.approval.enabled') && !creator.mayApprove, approvalRemark: null, approveDecidedBy: null,
    retryOf: retryOf === null ? null : Number(retryOf[1]), dynamic, ...conditions, ...safety, ...audit,
    ...(release === undefined ? {} : { release }),
  };
  if (cfg.bool('implicit.lock.enabled')) await lockImplicitly(deps.store, tenant, ds, now);
  const also = [...groups.map((g) => deps.runtime.creation(ROLLOUT_GROUP, g)), ...members];
  const result = await deps.runtime.create(tenant, ROLLOUT, rollout, also);
  if (!result.ok) throw new AppError('ALREADY_EXISTS', `Rollout with name {${body.name}} already exists`);
  return rollout;
}

/**
 * POST .../retry (reference §4.6): a new rollout `<name>_retry` over the targets whose actions in
 * the finished rollout failed, one group, default conditions, the same type, force time and start.
 */
export async function retryRollout(
  deps: RolloutCreateDeps, tenant: Tenant, rollout: RolloutRecord, creator: Creator,
): Promise<RolloutRecord> {
  if (rollout.deleted) throw notFound('Rollout', rollout.id);
  // hawkBit's MgmtRolloutResource: a ValidationException, so 400 constraintViolation (not rollout.illegalState)
  if (rollout.status !== 'finished') throw new AppError('CONSTRAINT_VIOLATION', 'Rollout must be finished in order to be retried!');
  const c = DEFAULT_CONDITIONS;
  return createRollout(deps, tenant, {
    name: `${rollout.name}_retry`, description: rollout.description, targetFilterQuery: `failedrollout==${rollout.id}`,
    distributionSetId: rollout.ds, amountGroups: 1, type: rollout.actionType, forcetime: rollout.forceTime, startAt: rollout.startAt,
    confirmationRequired: false, successCondition: c.successCondition, successAction: c.successAction,
    errorCondition: c.errorCondition, errorAction: c.errorAction,
  }, { ...creator, mayHandle: true });
}

async function queryAll(deps: RolloutCreateDeps, tenant: Tenant, q: string): Promise<TargetRecord[]> {
  const found = await queryTargets(deps.store, tenant, {
    offset: 0, limit: SCAN_LIMIT, sort: DEFAULT_TARGET_SORT, filter: parseFilter(q, targetFields),
  }, await evalContext(deps, tenant));
  return found.content;
}

/** Targets whose action in the rollout ended in error. */
async function failedTargets(deps: RolloutCreateDeps, tenant: Tenant, rollout: number): Promise<TargetRecord[]> {
  const failed = (await actionsOfRollout(deps.store, tenant, rollout)).filter((a) => a.status === 'error' && a.rollback !== true);
  return (await loadRecords<TargetRecord>(deps.store, tenant, TARGET, failed.map((a) => a.targetId))).map((t) => t.value);
}
