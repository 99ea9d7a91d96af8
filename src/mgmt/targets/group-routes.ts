import { z } from 'zod';
import { edited } from '../../actors/outcomes.js';
import type { ActorEditor } from '../../actors/roles.js';
import { AppError } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Request, Route } from '../../http/types.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { parseFilter } from '../../query/index.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../query/targets.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, SCAN_LIMIT, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { editActors } from '../kit/actor-edit.js';
import { readBody, str } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { pageOf } from '../kit/hal.js';
import { evalContext, listParams } from '../kit/list.js';
import { callerOf, pathText, queryFlag } from '../kit/request.js';
import { targetResponse } from './responses.js';
import { LIMITS } from './target-body.js';
import { renderTargets } from './target-json.js';
import { findTargets } from './target-store.js';

export type TargetGroupDeps = KitDeps & { readonly runtime: ActorEditor };

/**
 * Target groups (hawkBit 1.0-1.1 `MgmtTargetGroupRestApi`, reference §3.5): the `group` text of
 * targets, `/` separating sub-groups. Lists match a group case-insensitively (`subgroups=true` adds
 * its `group/...` sub-groups); assignments set or clear the group of the targets named by a body of
 * controller ids (unknown ones ignored) or matching `q`, and answer 204. Reads need READ_TARGET,
 * changes UPDATE_TARGET, as hawkBit's TargetManagement.
 */
const controllerIds = z.array(str(z.string().min(1).max(LIMITS.controllerId))).min(1);
/** Targets changed per commit, so a group assignment over a large fleet stays within one commit's size. */
const CHUNK = 500;

export function targetGroupRoutes(deps: TargetGroupDeps): Route[] {
  const read = deps.mgmtAuth(ACCESS.target.read);
  const update = deps.mgmtAuth(ACCESS.target.update);
  const page = { list: true, response: pageSchema(targetResponse) } as const;
  const byIds = async (req: Request, group: string | null) => {
    const { tenant, username } = callerOf(req);
    const { found } = await findTargets(deps.store, tenant, readBody(req, controllerIds));
    await setGroup(deps, tenant, found.map((t) => t.id), group, username);
    return { status: 204 };
  };
  const byQuery = async (req: Request, group: string | null) => {
    const { tenant, username } = callerOf(req);
    const filter = parseFilter(requiredQuery(req, 'q'), targetFields);
    const all = { offset: 0, limit: SCAN_LIMIT, sort: DEFAULT_TARGET_SORT, filter };
    const found = await queryTargets(deps.store, tenant, all, await evalContext(deps, tenant));
    await setGroup(deps, tenant, found.content.map((t) => t.id), group, username);
    return { status: 204 };
  };
  const assigned = async (req: Request, group: string, subgroups: boolean) => {
    const { tenant } = callerOf(req);
    const query = new URLSearchParams(req.query);
    query.delete('q');
    const params = listParams(deps.limits, query, targetFields, DEFAULT_TARGET_SORT);
    const ids = (await allTargets(deps, tenant)).filter((t) => inGroup(t.group, group, subgroups)).map((t) => t.id);
    const result = await queryTargets(deps.store, tenant, { ...params, ids }, await evalContext(deps, tenant));
    return { status: 200, json: pageOf(await renderTargets(deps, tenant, req, result.content), result.total) };
  };
  const groupQuery = { name: 'group', type: 'string', description: "the group ('/' separates sub-groups)" } as const;
  const qQuery = { name: 'q', type: 'string', description: 'FIQL over the target fields' } as const;
  return [
    {
      method: 'GET', path: '/rest/v1/targetgroups', auth: read,
      doc: { summary: 'List the groups targets are in', response: z.array(z.string()) },
      handler: async (req) => {
        const groups = new Set((await allTargets(deps, callerOf(req).tenant)).map((t) => t.group).filter((g) => g !== null));
        return { status: 200, json: [...groups].sort() };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targetgroups', auth: update,
      doc: { summary: 'Put the targets matching q into a group', query: [groupQuery, qQuery], response: { status: 204 } },
      handler: (req) => byQuery(req, groupParam(requiredQuery(req, 'group'))),
    },
    {
      method: 'DELETE', path: '/rest/v1/targetgroups', auth: update,
      doc: { summary: 'Take the targets matching q out of their groups', query: [qQuery], response: { status: 204 } },
      handler: (req) => byQuery(req, null),
    },
    {
      method: 'GET', path: '/rest/v1/targetgroups/assigned', auth: read,
      doc: {
        ...page, summary: "A group's targets, with its sub-groups if asked",
        query: [groupQuery, { name: 'subgroups', type: 'boolean', description: "also the group's sub-groups (group/...)" }],
      },
      handler: (req) => assigned(req, groupParam(requiredQuery(req, 'group')), queryFlag(req, 'subgroups')),
    },
    {
      method: 'PUT', path: '/rest/v1/targetgroups/assigned', auth: update,
      doc: { summary: 'Put targets into a group (sub-groups allowed)', query: [groupQuery], body: controllerIds, response: { status: 204 } },
      handler: (req) => byIds(req, groupParam(requiredQuery(req, 'group'))),
    },
    {
      method: 'DELETE', path: '/rest/v1/targetgroups/assigned', auth: update, body: 'json',
      doc: { summary: 'Take targets out of their groups', body: controllerIds, response: { status: 204 } },
      handler: (req) => byIds(req, null),
    },
    {
      method: 'GET', path: '/rest/v1/targetgroups/:group/assigned', auth: read,
      doc: { ...page, summary: "A group's targets (no sub-groups)" },
      handler: (req) => assigned(req, groupParam(pathText(req, 'group')), false),
    },
    {
      method: 'PUT', path: '/rest/v1/targetgroups/:group/assigned', auth: update,
      doc: { summary: 'Put targets into a group', body: controllerIds, response: { status: 204 } },
      handler: (req) => byIds(req, groupParam(pathText(req, 'group'))),
    },
    {
      method: 'PUT', path: '/rest/v1/targetgroups/:group', auth: update,
      doc: { summary: 'Put the targets matching q into a group', query: [qQuery], response: { status: 204 } },
      handler: (req) => byQuery(req, groupParam(pathText(req, 'group'))),
    },
  ];
}

/** The target is in `group` (case-insensitive), or with `subgroups` in one of its `group/...`. */
function inGroup(targetGroup: string | null, group: string, subgroups: boolean): boolean {
  if (targetGroup === null) return false;
  const have = targetGroup.toLowerCase();
  const want = group.toLowerCase();
  return have === want || (subgroups && have.startsWith(`${want}/`));
}

function requiredQuery(req: Request, name: string): string {
  const value = req.query.get(name);
  if (value === null || value === '') throw new AppError('BAD_PARAMETER', `query parameter ${name} is required`);
  return value;
}

/** A group as a path or query gives it: 1 to 256 characters (the target field's limit). */
function groupParam(group: string): string {
  if (group.length === 0 || group.length > LIMITS.group) {
    throw new AppError('CONSTRAINT_VIOLATION', `group: must be 1 to ${LIMITS.group} characters, got ${group.length}`);
  }
  return group;
}

async function allTargets(deps: TargetGroupDeps, tenant: Tenant): Promise<TargetRecord[]> {
  const { ids } = await deps.store.ids(tenant, TARGET, SCAN_ALL);
  const out: TargetRecord[] = [];
  for (let i = 0; i < ids.length; i += CHUNK * 2) {
    for (const r of await loadRecords<TargetRecord>(deps.store, tenant, TARGET, ids.slice(i, i + CHUNK * 2))) out.push(r.value);
  }
  return out;
}

/**
 * Sets (null: clears) the group of these targets through the target actors, a chunk per commit; a
 * target deleted meanwhile is left out. Targets already in the group are not written.
 */
async function setGroup(deps: TargetGroupDeps, tenant: Tenant, ids: readonly number[], group: string | null, by: string): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    let chunk = ids.slice(i, i + CHUNK);
    for (;;) {
      const result = await editActors(deps, tenant, TARGET, chunk, by,
        (current) => current.map((t) => (t.group === group ? t : { ...t, group })));
      if (result.kind !== 'missing') {
        edited(result, 'Target');
        break;
      }
      chunk = chunk.filter((id) => id !== result.id);
    }
  }
}
