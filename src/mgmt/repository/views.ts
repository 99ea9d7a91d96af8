/**
 * The distribution set and software module JSON of the Management API, shared with the target,
 * deployment and rollout resources (Target assignedDS, action distributionset, ...).
 * @see reference §3.9 (DS JSON), §3.12 (SM JSON)
 */
import type { Services } from '../../app/services.js';
import type { DistributionSetRecord, SoftwareModuleRecord } from '../../domain/repository.js';
import type { Request } from '../../http/types.js';
import { auditJson, link } from '../kit/hal.js';
import { joinDistributionSets, joinSoftwareModules, type DsView, type SmView } from './joins.js';

const FIRST_PAGE = 'offset=0&limit=50';

/** Full DS JSON, modules included, in the order given. */
export async function renderDistributionSets(services: Services, tenant: string, req: Request, sets: readonly DistributionSetRecord[]): Promise<object[]> {
  const views = await joinDistributionSets(services.ctx.store, tenant, sets);
  return views.map((v) => dsJson(req, v));
}

/** SM JSON, in the order given. */
export async function renderSoftwareModules(services: Services, tenant: string, req: Request, modules: readonly SoftwareModuleRecord[]): Promise<object[]> {
  const views = await joinSoftwareModules(services.ctx.store, tenant, modules);
  return views.map((v) => smJson(req, v));
}

export function smJson(req: Request, v: SmView): object {
  const { sm } = v;
  const self = `/rest/v1/softwaremodules/${sm.id}`;
  return {
    ...auditJson(sm),
    name: sm.name,
    description: sm.description,
    id: sm.id,
    version: sm.version,
    type: v.type?.key ?? null,
    typeName: v.type?.name ?? null,
    vendor: sm.vendor,
    encrypted: sm.encrypted,
    locked: sm.locked,
    deleted: sm.deleted,
    _links: {
      self: link(req, self),
      artifacts: link(req, `${self}/artifacts`),
      type: link(req, `/rest/v1/softwaremoduletypes/${sm.type}`),
      metadata: link(req, `${self}/metadata?${FIRST_PAGE}`),
    },
  };
}

export function dsJson(req: Request, v: DsView): object {
  const { ds } = v;
  const self = `/rest/v1/distributionsets/${ds.id}`;
  return {
    ...auditJson(ds),
    name: ds.name,
    description: ds.description,
    id: ds.id,
    modules: v.modules.map((m) => smJson(req, m)),
    requiredMigrationStep: ds.requiredMigrationStep,
    type: v.type?.key ?? null,
    typeName: v.type?.name ?? null,
    complete: v.complete,
    version: ds.version,
    deleted: ds.deleted,
    valid: ds.valid,
    locked: ds.locked,
    _links: {
      self: link(req, self),
      modules: link(req, `${self}/assignedSM?${FIRST_PAGE}`),
      type: link(req, `/rest/v1/distributionsettypes/${ds.type}`),
      metadata: link(req, `${self}/metadata?${FIRST_PAGE}`),
    },
  };
}
