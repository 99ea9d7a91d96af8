import { AppError, badRequest } from '../../domain/errors.js';
import {
  ROLLOUT, ROLLOUT_GROUP, type RolloutGroupRecord, type RolloutRecord, NOT_STARTED,
} from '../../domain/rollout.js';
import { releaseControlsOf } from '../../domain/rollout-release.js';
import type { QueryDoc, Request, Route } from '../../http/types.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../query/targets.js';
import { actionsOfGroup, groupTargets } from '../../store/named-reads.js';
import type { Reads, Tenant } from '../../store/port.js';
import { loadRecords } from '../../store/reads.js';
import { loadActorOr404 } from '../kit/actor-store.js';
import { ACCESS, APPROVE_ROLLOUT, HANDLE_ROLLOUT, READ_ROLLOUT_TARGETS } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import { command } from '../kit/commands.js';
import { pageOf } from '../kit/hal.js';
import { evalContext, listPage, listParams } from '../kit/list.js';
import type { Context } from '../kit/named.js';
import { actorRoutes, type ActorRouteDeps } from '../kit/actor-routes.js';
import { callerOf, holds, isFull, pathId } from '../kit/request.js';
import { renderTargets } from '../targets/target-json.js';
import { createRolloutBody, updateRolloutBody } from './rollout-body.js';
import { createRollout, retryRollout, type Creator, type RolloutCreateDeps } from './rollout-create.js';
import { safetyOf, withSafety } from './rollout-safety-body.js';
import { withSeed } from './release-body.js';
import { groupFields, joinRollouts, renderGroups, renderRollouts, rolloutFields, rolloutPath } from './rollout-json.js';
import { rolloutGroupResponse, rolloutResponse } from './responses.js';
import { targetResponse } from '../targets/responses.js';

export type RolloutDeps = RolloutCreateDeps & ActorRouteDeps;

/** The rollout engine (src/scheduler/rollouts.ts) as the routes use it: a group start's actions start before the answer. */
export interface RolloutAdvance {
  advance(tenant: Tenant, rollout: number, now: number): Promise<void>;
  /** Divides the rollout's targets over its groups again after its groupOrder changed (src/scheduler/regroup.ts). */
  regroup(tenant: Tenant, rollout: number, now: number): Promise<void>;
}

const BASE = '/rest/v1/rollouts';
const ONE = `${BASE}/:rolloutId`;
const REMARK_MAX = 255;
const REMARK: readonly QueryDoc[] = [{ name: 'remark', description: `at most ${REMARK_MAX} characters` }];

/**
 * The Management routes of rollouts (reference §3.7). Rollouts are actors: `actorRoutes` serves the
 * list (the one list engine: FIQL, sort, paging), read, update, delete (an event: the engine removes
 * it) and the operations table, each an event to the rollout's machine through `command` (a status
 * that does not take it answers 400 `rollout.illegalState`). Creation, retry and the groups are
 * routes of their own; the engine (src/scheduler/rollouts.ts) does the work each status asks for.
 */
export function rolloutRoutes(deps: RolloutDeps, engine: RolloutAdvance): Route[] {
  const read = deps.mgmtAuth(ACCESS.rollout.read);
  const single = async (req: Request, tenant: Tenant, r: RolloutRecord) => (await renderRollouts(deps.store, tenant, req, [r], true))[0];
  const creator = (req: Request): Creator => ({
    by: callerOf(req).username, mayHandle: holds(req, 'HANDLE_ROLLOUT'), mayApprove: holds(req, 'APPROVE_ROLLOUT'),
  });
  const remark = (req: Request): string | null => {
    const r = req.query.get('remark');
    if (r !== null && r.length > REMARK_MAX) throw new AppError('BAD_PARAMETER', `remark must be at most ${REMARK_MAX} characters, got ${r.length}`);
    return r === null || r === '' ? null : r;
  };
  const load = async (req: Request): Promise<{ tenant: Tenant; rollout: RolloutRecord }> => {
    const { tenant } = callerOf(req);
    return { tenant, rollout: (await loadActorOr404(deps.store, tenant, ROLLOUT, pathId(req, 'rolloutId', 'Rollout'))).value };
  };
  const groupOf = async (req: Request, tenant: Tenant, rollout: RolloutRecord): Promise<RolloutGroupRecord> => {
    const id = pathId(req, 'groupId', 'RolloutGroup');
    return (await loadActorOr404(deps.store, tenant, ROLLOUT_GROUP, id, { belongs: (g) => g.rollout === rollout.id })).value;
  };
  /** A rollout whose groups a new groupOrder may divide again: groups without a filter of their own (their sizes then stay). */
  const regroupable = async (tenant: Tenant, r: RolloutRecord): Promise<void> => {
    const groups = await loadRecords<RolloutGroupRecord>(deps.store, tenant, ROLLOUT_GROUP, r.groups);
    const filtered = groups.find((g) => g.value.dynamic !== true && g.value.targetFilterQuery !== null);
    if (filtered !== undefined) {
      throw badRequest(`body.groupOrder: group ${filtered.id} '${filtered.value.name}' has a targetFilterQuery of its own; create a new rollout for another order`);
    }
  };
  /** The next scheduled group starts now (the groups running keep running); the engine starts its actions before the answer. */
  const triggerNextGroup = async (_req: Request, { tenant }: Context, rollout: RolloutRecord): Promise<void> => {
    if (rollout.status !== 'running') throw illegal('triggerNextGroup', rollout);
    const groups = await loadRecords<RolloutGroupRecord>(deps.store, tenant, ROLLOUT_GROUP, rollout.groups);
    const next = groups.find((g) => g.value.status === 'scheduled');
    if (next === undefined) throw new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${rollout.id} has no scheduled group left to trigger`);
    await command(deps, tenant, ROLLOUT_GROUP, next.id, { type: 'engine.started', at: deps.now() }, () => illegal('triggerNextGroup', rollout));
    // as hawkBit's NEXTGROUP activation does in one step
    await engine.advance(tenant, rollout.id, deps.now());
  };

  const [list, ...actor] = actorRoutes(deps, {
    kind: ROLLOUT, path: BASE, idParam: 'rolloutId', noun: 'rollout', access: ACCESS.rollout, schema: rolloutResponse,
    render: (req, tenant, records, full) => renderRollouts(deps.store, tenant, req, records, full),
    list: {
      fields: rolloutFields, softDeleted: true, representation: true,
      views: { join: (tenant, records, joins) => joinRollouts(deps.store, tenant, records, joins), record: (v) => v.r },
    },
    update: {
      body: updateRolloutBody,
      prepare: (_ctx, body) => ({ body, release: releaseControlsOf(withSeed(body), { now: deps.now() }) }),
      apply: async ({ tenant }, r, { body, release }) => {
        const safety = await safetyOf(deps.store, tenant, body);
        if (r.status === 'deleting' || r.status === 'deleted') throw new AppError('READ_ONLY', `Rollout ${r.id} is ${r.status} and cannot be changed`);
        if (release !== undefined && !NOT_STARTED.includes(r.status)) throw illegal('changing the release controls', r);
        const regroup = release?.groupOrder !== undefined;
        if (regroup) await regroupable(tenant, r);
        return {
          ...withSafety(r, body, safety), name: body.name ?? r.name,
          description: body.description === undefined ? r.description : body.description,
          ...(release === undefined ? {} : { release: { ...r.release, ...release } }),
          ...(regroup ? { regroup: true } : {}),
        };
      },
      // a new groupOrder: the targets are divided over the groups again before the answer (the engine does it after a stop)
      after: async ({ tenant }, r, { release }) => {
        if (release?.groupOrder !== undefined) await engine.regroup(tenant, r.id, deps.now());
      },
    },
    // deleting or deleted already: nothing more to do
    remove: async ({ tenant, by }, { id }) => {
      await command(deps, tenant, ROLLOUT, id, { type: 'mgmt.delete', at: deps.now(), by });
    },
    refused: illegal,
    operations: [
      { name: 'start', permission: HANDLE_ROLLOUT, event: (_req, by, at) => ({ type: 'mgmt.start', at, by }) },
      { name: 'pause', permission: HANDLE_ROLLOUT, event: (_req, by, at) => ({ type: 'mgmt.pause', at, by }) },
      { name: 'resume', permission: HANDLE_ROLLOUT, event: (_req, by, at) => ({ type: 'mgmt.resume', at, by }) },
      { name: 'stop', permission: HANDLE_ROLLOUT, event: (_req, by, at) => ({ type: 'mgmt.stop', at, by }) },
      { name: 'approve', permission: APPROVE_ROLLOUT, query: REMARK, event: (req, by, at) => ({ type: 'mgmt.approve', at, by, remark: remark(req) }) },
      { name: 'deny', permission: APPROVE_ROLLOUT, query: REMARK, event: (req, by, at) => ({ type: 'mgmt.deny', at, by, remark: remark(req) }) },
      { name: 'triggerNextGroup', permission: HANDLE_ROLLOUT, summary: 'Start the next group now', run: triggerNextGroup },
    ],
  });

  return [
    ...(list === undefined ? [] : [list]),
    {
      method: 'POST', path: BASE, auth: deps.mgmtAuth(ACCESS.rollout.create),
      doc: { summary: 'Create a rollout', body: createRolloutBody, response: { status: 201, schema: rolloutResponse } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const rollout = await createRollout(deps, tenant, readBody(req, createRolloutBody), creator(req));
        return { status: 201, json: await single(req, tenant, rollout) };
      },
    },
    ...actor,
    {
      method: 'POST', path: `${ONE}/retry`, auth: deps.mgmtAuth(ACCESS.rollout.create),
      doc: { summary: 'A new rollout over the failed targets', response: { status: 201, schema: rolloutResponse } },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        const retry = await retryRollout(deps, tenant, rollout, creator(req));
        return { status: 201, json: await single(req, tenant, retry) };
      },
    },
    {
      method: 'GET', path: `${ONE}/deploygroups`, auth: read,
      doc: { summary: "List a rollout's groups", list: 'full', response: pageSchema(rolloutGroupResponse) },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        const page = await listPage(deps, tenant, req, { kind: ROLLOUT_GROUP, fields: groupFields, within: { index: 'rollout', key: String(rollout.id) } });
        const flow = (await deps.tenantConfig.view(tenant)).bool('user.confirmation.flow.enabled');
        const groups = await renderGroups(deps.store, tenant, req, rollout, page.content, isFull(req), flow);
        return { status: 200, json: pageOf(groups, page.total) };
      },
    },
    {
      method: 'GET', path: `${ONE}/deploygroups/:groupId`, auth: read, doc: { summary: 'Read a rollout group', response: rolloutGroupResponse },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        const group = await groupOf(req, tenant, rollout);
        const flow = (await deps.tenantConfig.view(tenant)).bool('user.confirmation.flow.enabled');
        return { status: 200, json: (await renderGroups(deps.store, tenant, req, rollout, [group], true, flow))[0] };
      },
    },
    {
      method: 'GET', path: `${ONE}/deploygroups/:groupId/targets`, auth: deps.mgmtAuth(READ_ROLLOUT_TARGETS),
      doc: { summary: "List a rollout group's targets", list: true, response: pageSchema(targetResponse) },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        const group = await groupOf(req, tenant, rollout);
        const params = listParams(deps.limits, req.query, targetFields, DEFAULT_TARGET_SORT);
        const ids = await groupTargetIds(deps.store, tenant, group);
        const result = await queryTargets(deps.store, tenant, { ...params, ids }, await evalContext(deps, tenant));
        return { status: 200, json: pageOf(await renderTargets(deps, tenant, req, result.content), result.total) };
      },
    },
  ];
}

/** A group's targets: its member records, or for a dynamic group (filled while running) its actions' targets. */
async function groupTargetIds(store: Reads, tenant: Tenant, group: RolloutGroupRecord): Promise<number[]> {
  if (group.dynamic === true) {
    return (await actionsOfGroup(store, tenant, group.id)).map((a) => a.targetId);
  }
  return groupTargets(store, tenant, group.id);
}

function illegal(op: string, rollout: RolloutRecord): AppError {
  return new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${rolloutPath(rollout.id)} is ${rollout.status}: ${op} is not allowed in this status`);
}
