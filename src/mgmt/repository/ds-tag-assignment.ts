/**
 * Which sets carry a tag: `/rest/v1/distributionsettags/{id}/assigned[/{dsId}]` and
 * `.../assigned/toggleTagAssignment`. Bodies of the 0.5-0.9 generation (`[{"id": n}]`, answered
 * with the sets) and of the newer one (`[n, ...]`, answered 204) are both accepted.
 * @see reference §3.11 and §10, spec 4.2
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { touched } from '../../domain/audit.js';
import { AppError, notFound } from '../../domain/errors.js';
import { DS, DS_TAG, type DistributionSetRecord } from '../../domain/repository.js';
import { parseJsonBody, validate } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { expectCommitted, loadOr404 } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { distributionSetFields } from './fields.js';
import { joinDistributionSets, type DsView } from './joins.js';
import { listViews } from './listing.js';
import { pathId, softDeletedMode, visibleIn } from './params.js';
import { idRef, plainId } from './schemas.js';
import { dsJson } from './views.js';

const LABEL = 'DistributionSetTag';
const BASE = '/rest/v1/distributionsettags/:distributionsetTagId';
const idList = z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(z.union([plainId, idRef])));

/** The ids of the body and whether it used the old `{id}` objects. */
function readIds(req: Request): { ids: number[]; legacy: boolean } {
  const items = validate(parseJsonBody(req.body), idList);
  return { ids: [...new Set(items.map((x) => (typeof x === 'number' ? x : x.id)))], legacy: items.some((x) => typeof x !== 'number') };
}

export function dsTagAssignmentRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET');
  const store = () => services.ctx.store;
  const tagOf = async (req: Request) => {
    const id = pathId(req, 'distributionsetTagId', LABEL);
    await loadOr404(store(), principalOf(req).tenant, DS_TAG, id, LABEL);
    return id;
  };
  const render = async (req: Request, tenant: string, sets: readonly DistributionSetRecord[]) =>
    (await joinDistributionSets(store(), tenant, sets)).map((v) => dsJson(req, v));
  const tagSets = (req: Request, tag: number, ids: readonly number[], on: boolean) => {
    const { tenant, username } = principalOf(req);
    return updateSets(services, tenant, ids, username, (d) =>
      ({ ...d, tags: on ? (d.tags.includes(tag) ? d.tags : [...d.tags, tag]) : d.tags.filter((t) => t !== tag) }));
  };
  const list: Route['handler'] = async (req) => {
    const { tenant } = principalOf(req);
    const tag = await tagOf(req);
    const page = await listViews<DistributionSetRecord, DsView>(services, tenant, req, {
      kind: DS, fields: distributionSetFields, within: { index: 'tag', key: String(tag) }, visible: visibleIn(softDeletedMode(req)),
      join: (records) => joinDistributionSets(store(), tenant, records),
    });
    return { status: 200, json: pageOf(page.content.map((v) => dsJson(req, v)), page.total) };
  };
  const assign: Route['handler'] = async (req) => {
    const tag = await tagOf(req);
    const { ids, legacy } = readIds(req);
    const sets = await tagSets(req, tag, ids, true);
    return legacy ? { status: 200, json: await render(req, principalOf(req).tenant, sets) } : { status: 204 };
  };
  const unassign: Route['handler'] = async (req) => {
    const tag = await tagOf(req);
    await tagSets(req, tag, readIds(req).ids, false);
    return { status: 204 };
  };

  return [
    { method: 'GET', path: `${BASE}/assigned`, auth: auth.read, handler: list },
    // the path of the older reference for the same list (spec 4.2)
    { method: 'GET', path: `${BASE}/distributionsets`, auth: auth.read, handler: list },
    { method: 'POST', path: `${BASE}/assigned`, auth: auth.update, handler: assign },
    { method: 'PUT', path: `${BASE}/assigned`, auth: auth.update, handler: assign },
    { method: 'DELETE', path: `${BASE}/assigned`, auth: auth.update, body: 'json', handler: unassign },
    {
      method: 'POST', path: `${BASE}/assigned/:distributionsetId`, auth: auth.update, body: 'none',
      handler: async (req) => {
        await tagSets(req, await tagOf(req), [pathId(req, 'distributionsetId', 'DistributionSet')], true);
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/assigned/:distributionsetId`, auth: auth.update,
      handler: async (req) => {
        await tagSets(req, await tagOf(req), [pathId(req, 'distributionsetId', 'DistributionSet')], false);
        return { status: 204 };
      },
    },
    {
      // hawkBit: when every listed set has the tag it is removed from all, otherwise added to those without
      method: 'POST', path: `${BASE}/assigned/toggleTagAssignment`, auth: auth.update,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const tag = await tagOf(req);
        const { ids } = readIds(req);
        const before = await loadSets(services, tenant, ids);
        const allTagged = before.every((d) => d.tags.includes(tag));
        const after = await tagSets(req, tag, ids, !allTagged);
        const untagged = new Set(before.filter((d) => !d.tags.includes(tag)).map((d) => d.id));
        return {
          status: 200,
          json: {
            assignedDistributionSets: allTagged ? [] : await render(req, tenant, after.filter((d) => untagged.has(d.id))),
            unassignedDistributionSets: allTagged ? await render(req, tenant, after) : [],
          },
        };
      },
    },
  ];
}

async function loadSets(services: Services, tenant: string, ids: readonly number[]): Promise<DistributionSetRecord[]> {
  const found = await services.ctx.store.getMany<DistributionSetRecord>(tenant, DS, ids);
  return found.map((f, i) => {
    if (f === undefined) throw notFound('DistributionSet', ids[i] ?? '?');
    return f.value;
  });
}

/**
 * Changes several sets in one atomic commit (all or none), retrying on concurrent writes; 404 names
 * the first missing set. Returns every listed set as it is afterwards.
 */
export async function updateSets(
  services: Services, tenant: string, ids: readonly number[], username: string, change: (d: DistributionSetRecord) => DistributionSetRecord,
): Promise<DistributionSetRecord[]> {
  const store = services.ctx.store;
  for (let attempt = 1; attempt <= 8; attempt++) {
    const found = await store.getMany<DistributionSetRecord>(tenant, DS, ids);
    const writes = [];
    const out: DistributionSetRecord[] = [];
    for (const [i, f] of found.entries()) {
      if (f === undefined) throw notFound('DistributionSet', ids[i] ?? '?');
      const next = change(f.value);
      if (next.tags.length === f.value.tags.length && next.tags.every((t, j) => t === f.value.tags[j])) {
        out.push(f.value);
        continue;
      }
      const stamped = touched(next, username, services.now());
      writes.push({ kind: DS, id: f.id, expect: f.version, before: f.value, after: stamped });
      out.push(stamped);
    }
    if (writes.length === 0) return out;
    const result = await store.commit(tenant, { writes });
    if (result.ok) return out;
    if (result.reason !== 'stale-version') expectCommitted(result, 'DistributionSet');
  }
  throw new AppError('CONCURRENT_MODIFICATION', 'distribution sets are being modified concurrently; retry the request');
}
