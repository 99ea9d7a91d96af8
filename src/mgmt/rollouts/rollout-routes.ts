import { edited } from '../../actors/outcomes.js';
import type { ActorEditor } from '../../actors/roles.js';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import { AppError } from '../../domain/errors.js';
import {
  ROLLOUT, ROLLOUT_GROUP, ROLLOUT_MEMBERS, type RolloutGroupRecord, type RolloutMembersRecord, type RolloutRecord, NOT_STARTED,
} from '../../domain/rollout.js';
import { releaseControlsOf } from '../../domain/rollout-release.js';
import type { RolloutEvent } from '../../domain/rollout.machine.js';
import type { QueryDoc, Request, Route } from '../../http/types.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../query/targets.js';
import type { Reads, Tenant } from '../../store/port.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { loadActorOr404 } from '../kit/actor-store.js';
import { ACCESS, APPROVE_ROLLOUT, HANDLE_ROLLOUT, READ_ROLLOUT_TARGETS } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import { command, type CommandDeps } from '../kit/commands.js';
import { pageOf } from '../kit/hal.js';
import { evalContext, listPage, listParams } from '../kit/list.js';
import { softDeletedFilter } from '../kit/named.js';
import { callerOf, holds, isFull, pathId } from '../kit/request.js';
import { renderTargets } from '../targets/target-json.js';
import { createRolloutBody, updateRolloutBody } from './rollout-body.js';
import { createRollout, retryRollout, type Creator, type RolloutCreateDeps } from './rollout-create.js';
import { safetyOf, withSafety } from './rollout-safety-body.js';
import { groupFields, joinRollouts, renderGroups, renderRollouts, rolloutFields, rolloutPath } from './rollout-json.js';
import { rolloutGroupResponse, rolloutResponse } from './responses.js';
import { targetResponse } from '../targets/responses.js';

export type RolloutDeps = RolloutCreateDeps & CommandDeps & {
  readonly runtime: ActorEditor;
};

/** The rollout engine (src/scheduler/rollouts.ts) as the routes use it: a group start's actions start before the answer. */
export interface RolloutAdvance {
  advance(tenant: Tenant, rollout: number, now: number): Promise<void>;
}

const BASE = '/rest/v1/rollouts';
const ONE = `${BASE}/:rolloutId`;
const REMARK_MAX = 255;
const SOFT_DELETED: QueryDoc = { name: 'soft_deleted_mode', values: ['EXCLUDE_SOFT_DELETED', 'ONLY_SOFT_DELETED', 'INCLUDE_SOFT_DELETED'] };
const opQuery = (op: string): QueryDoc[] =>
  (op === 'approve' || op === 'deny' ? [{ name: 'remark', description: `at most ${REMARK_MAX} characters` }] : []);

/**
 * The Management routes of rollouts (reference §3.7), written with the kit's pieces: `listPage` (the
 * one list engine: FIQL, sort, paging) for rollouts, groups and group targets, `command` for every
 * operation (an event to the rollout's machine: a status that does not take it answers 400
 * `rollout.illegalState`), `readBody` with the kit's body blocks. Rollouts and groups are actors, so
 * their records are written only by the runtime (namedRoutes writes plain records; it is not used).
 * The engine (src/scheduler/rollouts.ts) does the work each status asks for.
 */
export function rolloutRoutes(deps: RolloutDeps, engine: RolloutAdvance): Route[] {
  const read = deps.mgmtAuth(ACCESS.rollout.read);
  const handle = deps.mgmtAuth(HANDLE_ROLLOUT);
  const approve = deps.mgmtAuth(APPROVE_ROLLOUT);
  const load = async (req: Request): Promise<{ tenant: Tenant; rollout: RolloutRecord }> => {
    const { tenant } = callerOf(req);
    return { tenant, rollout: (await loadActorOr404(deps.store, tenant, ROLLOUT, pathId(req, 'rolloutId', 'Rollout'))).value };
  };
  const single = async (req: Request, tenant: Tenant, r: RolloutRecord) => (await renderRollouts(deps.store, tenant, req, [r], true))[0];
  const creator = (req: Request): Creator => ({
    by: callerOf(req).username, mayHandle: holds(req, 'HANDLE_ROLLOUT'), mayApprove: holds(req, 'APPROVE_ROLLOUT'),
  });
  /** An operation: the event to the rollout's machine, 204; refused in a status that does not take it. */
  const operation = (op: string, auth: Route['auth'], event: (req: Request, by: string, at: number) => RolloutEvent): Route => ({
    method: 'POST', path: `${ONE}/${op}`, auth, doc: { summary: `${op} the rollout`, query: opQuery(op), response: { status: 204 } },
    handler: async (req) => {
      const { tenant, rollout } = await load(req);
      await command(deps, tenant, ROLLOUT, rollout.id, event(req, callerOf(req).username, deps.now()), () => illegal(op, rollout));
      return { status: 204 };
    },
  });
  const remark = (req: Request): string | null => {
    const r = req.query.get('remark');
    if (r !== null && r.length > REMARK_MAX) throw new AppError('BAD_PARAMETER', `remark must be at most ${REMARK_MAX} characters, got ${r.length}`);
    return r === null || r === '' ? null : r;
  };
  const groupOf = async (req: Request, tenant: Tenant, rollout: RolloutRecord): Promise<RolloutGroupRecord> => {
    const id = pathId(req, 'groupId', 'RolloutGroup');
    return (await loadActorOr404(deps.store, tenant, ROLLOUT_GROUP, id, { belongs: (g) => g.rollout === rollout.id })).value;
  };

  return [
    {
      method: 'GET', path: BASE, auth: read,
      doc: { summary: 'List rollouts', list: 'full', query: [SOFT_DELETED], response: pageSchema(rolloutResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const visible = softDeletedFilter(req);
        const page = await listPage(deps, tenant, req, {
          kind: ROLLOUT, fields: rolloutFields,
          join: (records: readonly RolloutRecord[], joins) => joinRollouts(deps.store, tenant, records, joins),
          visible: (r: RolloutRecord) => visible(r),
        });
        const json = await renderRollouts(deps.store, tenant, req, page.content.map((v) => v.r), isFull(req));
        return { status: 200, json: pageOf(json, page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: deps.mgmtAuth(ACCESS.rollout.create),
      doc: { summary: 'Create a rollout', body: createRolloutBody, response: { status: 201, schema: rolloutResponse } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const rollout = await createRollout(deps, tenant, readBody(req, createRolloutBody), creator(req));
        return { status: 201, json: await single(req, tenant, rollout) };
      },
    },
    {
      method: 'GET', path: ONE, auth: read, doc: { summary: 'Read a rollout', response: rolloutResponse },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        return { status: 200, json: await single(req, tenant, rollout) };
      },
    },
    {
      method: 'PUT', path: ONE, auth: deps.mgmtAuth(ACCESS.rollout.update),
      doc: { summary: 'Update a rollout', body: updateRolloutBody, response: rolloutResponse },
      handler: async (req) => {
        const body = readBody(req, updateRolloutBody);
        const release = releaseControlsOf(body);
        const { tenant, rollout } = await load(req);
        const { username } = callerOf(req);
        const safety = await safetyOf(deps.store, tenant, body);
        const [updated] = edited(await deps.runtime.update(tenant, ROLLOUT, rollout.id, (r) => {
          if (r.status === 'deleting' || r.status === 'deleted') throw new AppError('READ_ONLY', `Rollout ${r.id} is ${r.status} and cannot be changed`);
          if (release !== undefined && !NOT_STARTED.includes(r.status)) throw illegal('changing the release controls', r);
          return {
            ...withSafety(r, body, safety), name: body.name ?? r.name,
            description: body.description === undefined ? r.description : body.description,
            lastModifiedBy: username, lastModifiedAt: deps.now(),
            ...(release === undefined ? {} : { release: { ...r.release, ...release } }),
          };
        }), 'Rollout', rollout.id);
        return { status: 200, json: await single(req, tenant, updated ?? rollout) };
      },
    },
    {
      method: 'DELETE', path: ONE, auth: deps.mgmtAuth(ACCESS.rollout.delete), doc: { summary: 'Delete a rollout', response: { status: 204 } },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        // deleting or deleted already: nothing more to do
        await command(deps, tenant, ROLLOUT, rollout.id, { type: 'mgmt.delete', at: deps.now(), by: callerOf(req).username });
        return { status: 204 };
      },
    },
    operation('start', handle, (_req, by, at) => ({ type: 'mgmt.start', at, by })),
    operation('pause', handle, (_req, by, at) => ({ type: 'mgmt.pause', at, by })),
    operation('resume', handle, (_req, by, at) => ({ type: 'mgmt.resume', at, by })),
    operation('stop', handle, (_req, by, at) => ({ type: 'mgmt.stop', at, by })),
    operation('approve', approve, (req, by, at) => ({ type: 'mgmt.approve', at, by, remark: remark(req) })),
    operation('deny', approve, (req, by, at) => ({ type: 'mgmt.deny', at, by, remark: remark(req) })),
    {
      // the next scheduled group starts now (the groups running keep running); the engine starts its actions
      method: 'POST', path: `${ONE}/triggerNextGroup`, auth: handle, doc: { summary: 'Start the next group now', response: { status: 204 } },
      handler: async (req) => {
        const { tenant, rollout } = await load(req);
        if (rollout.status !== 'running') throw illegal('triggerNextGroup', rollout);
        const groups = await loadRecords<RolloutGroupRecord>(deps.store, tenant, ROLLOUT_GROUP, rollout.groups);
        const next = groups.find((g) => g.value.status === 'scheduled');
        if (next === undefined) throw new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${rollout.id} has no scheduled group left to trigger`);
        await command(deps, tenant, ROLLOUT_GROUP, next.id, { type: 'engine.started', at: deps.now() }, () => illegal('triggerNextGroup', rollout));
        // the engine starts its actions before the answer, as hawkBit's NEXTGROUP activation does in one step
        await engine.advance(tenant, rollout.id, deps.now());
        return { status: 204 };
      },
    },
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
    const page = await store.members(tenant, ACTION, 'rolloutGroup', String(group.id), SCAN_ALL);
    return (await loadRecords<ActionRecord>(store, tenant, ACTION, page.ids)).map((a) => a.value.targetId);
  }
  const chunks = await store.members(tenant, ROLLOUT_MEMBERS, 'group', String(group.id), SCAN_ALL);
  return (await loadRecords<RolloutMembersRecord>(store, tenant, ROLLOUT_MEMBERS, chunks.ids)).flatMap((m) => m.value.targets);
}

function illegal(op: string, rollout: RolloutRecord): AppError {
  return new AppError('ROLLOUT_ILLEGAL_STATE', `Rollout ${rolloutPath(rollout.id)} is ${rollout.status}: ${op} is not allowed in this status`);
}
