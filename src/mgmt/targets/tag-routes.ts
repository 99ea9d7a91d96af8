import type { Services } from '../../app/services.js';
import { created } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { TARGET_TAG, type TagRecord } from '../../domain/repository.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { acceptSingleAsArray, parseJsonBody, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { parseListParams } from '../../query/index.js';
import { SCAN_LIMIT, listEntities } from '../kit/listing.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { ACCESS } from './access.js';
import { findTargets, notFoundPolicy, setTag, targetsNotFound } from './tag-assignment.js';
import { controllerIdList, tagCreateItem, tagFields, tagJson, tagUpdateBody } from './tag-json.js';
import { loadTarget } from './target-store.js';
import { idParam, principalOf, textParam } from './request.js';
import { listTargets, renderTargets } from './views.js';

const LABEL = 'TargetTag';

/** `/rest/v1/targettags` (reference §3.2; 0.5 assignment bodies and toggle per spec 4.2). */
export function tagRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const tagOf = async (req: Request): Promise<TagRecord> =>
    (await loadOr404<TagRecord>(store(), principalOf(req).tenant, TARGET_TAG, idParam(req, 'targetTagId', LABEL), LABEL)).value;
  const base = '/rest/v1/targettags/:targetTagId';
  return [
    {
      method: 'GET', path: '/rest/v1/targettags', auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const { limits } = services.ctx.config;
        const params = parseListParams(req.query, {
          defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: tagFields, filterFields: tagFields,
          defaultSort: [{ field: 'id', dir: 'ASC' }],
        });
        const now = services.now();
        const page = await listEntities({ store: store(), tenant, kind: TARGET_TAG, fields: tagFields }, params, { now, overdueTs: now });
        return { status: 200, json: pageOf(page.content.map((t) => tagJson(req, t, false)), page.total) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targettags', auth: services.mgmtAuth(ACCESS.createTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const items = readJson(req, acceptSingleAsArray(tagCreateItem));
        const names = items.map((i) => i.name.toLowerCase());
        const twice = names.findIndex((n, i) => names.indexOf(n) !== i);
        if (twice !== -1) throw new AppError('ALREADY_EXISTS', `TargetTag with name {${items[twice]?.name}} is given twice in the request`);
        const audit = created(username, services.now());
        const tags = await createRecords<TagRecord>(store(), tenant, TARGET_TAG, LABEL, (id, i) => {
          const item = items[i] as (typeof items)[number];
          return { id, name: item.name, description: item.description ?? null, colour: item.colour ?? null, ...audit };
        }, items.length);
        return { status: 201, json: tags.map((t) => tagJson(req, t, false)) };
      },
    },
    {
      method: 'GET', path: base, auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => ({ status: 200, json: tagJson(req, await tagOf(req), true) }),
    },
    {
      method: 'PUT', path: base, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, tagUpdateBody);
        const id = idParam(req, 'targetTagId', LABEL);
        const now = services.now();
        const tag = await updateRecord<TagRecord>(store(), tenant, TARGET_TAG, id, LABEL, (t) => ({
          ...t, name: body.name ?? t.name, description: body.description ?? t.description, colour: body.colour ?? t.colour,
          lastModifiedBy: username, lastModifiedAt: now,
        }));
        return { status: 200, json: tagJson(req, tag, true) };
      },
    },
    {
      method: 'DELETE', path: base, auth: services.mgmtAuth(ACCESS.deleteTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const tag = await tagOf(req);
        // untag every target first, so no target keeps a dangling tag id
        const ids = (await store().members(tenant, TARGET, 'tag', String(tag.id), { offset: 0, limit: SCAN_LIMIT })).ids;
        for (let i = 0; i < ids.length; i += 1000) {
          const found = (await store().getMany<TargetRecord>(tenant, TARGET, ids.slice(i, i + 1000))).flatMap((r) => (r === undefined ? [] : [r.value]));
          await setTag(services, tenant, found, tag.id, false, username);
        }
        await deleteRecord(store(), tenant, TARGET_TAG, tag.id, LABEL);
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: `${base}/assigned`, auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const tag = await tagOf(req);
        return { status: 200, json: await listTargets(services, principalOf(req).tenant, req, { within: { index: 'tag', key: String(tag.id) } }) };
      },
    },
    // 0.5 bodies `[{"controllerId"}]` answer the tagged targets; 0.9 bodies `["cid"]` (POST or PUT) answer 204
    ...(['POST', 'PUT'] as const).map((method): Route => ({
      method, path: `${base}/assigned`, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const tag = await tagOf(req);
        const targets = await resolve(services, req, readJson(req, controllerIdList));
        const updated = await setTag(services, tenant, targets.found, tag.id, true, username);
        if (targets.fail) throw targetsNotFound(targets.missing);
        if (!hasObjectItems(parseJsonBody(req.body))) return { status: 204 };
        return { status: 200, json: await renderTargets(services, tenant, req, updated) };
      },
    })),
    {
      method: 'DELETE', path: `${base}/assigned`, body: 'json', auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const tag = await tagOf(req);
        const targets = await resolve(services, req, readJson(req, controllerIdList));
        await setTag(services, tenant, targets.found, tag.id, false, username);
        if (targets.fail) throw targetsNotFound(targets.missing);
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: `${base}/assigned/toggleTagAssignment`, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const tag = await tagOf(req);
        // 0.5 semantics: unknown ids are skipped; all tagged -> untag all, else tag the untagged ones
        const { found } = await findTargets(services, tenant, readJson(req, controllerIdList));
        const allTagged = found.length > 0 && found.every((t) => t.tags.includes(tag.id));
        const subject = allTagged ? found : found.filter((t) => !t.tags.includes(tag.id));
        const changed = await renderTargets(services, tenant, req, await setTag(services, tenant, subject, tag.id, !allTagged, username));
        return { status: 200, json: { assignedTargets: allTagged ? [] : changed, unassignedTargets: allTagged ? changed : [] } };
      },
    },
    ...(['POST', 'DELETE'] as const).map((method): Route => ({
      method, path: `${base}/assigned/:controllerId`, body: 'none', auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const tag = await tagOf(req);
        const target = await loadTarget(store(), tenant, textParam(req, 'controllerId'));
        await setTag(services, tenant, [target.value], tag.id, method === 'POST', username);
        return { status: 204 };
      },
    })),
  ];
}

/** Finds the targets of an assignment body; with policy FAIL a missing one fails before any change. */
async function resolve(services: Services, req: Request, controllerIds: readonly string[]): Promise<{ found: TargetRecord[]; missing: string[]; fail: boolean }> {
  const policy = notFoundPolicy(req);
  const { found, missing } = await findTargets(services, principalOf(req).tenant, controllerIds);
  if (missing.length > 0 && policy === 'FAIL') throw targetsNotFound(missing);
  return { found, missing, fail: missing.length > 0 && policy === 'ON_WHAT_FOUND_AND_FAIL' };
}

/** Whether a tag-assignment body is the 0.5 form (objects with controllerId) rather than plain ids. */
function hasObjectItems(body: unknown): boolean {
  const items = Array.isArray(body) ? body : [body];
  return items.some((x) => typeof x === 'object' && x !== null);
}
