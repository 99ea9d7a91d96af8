/**
 * The distribution set and software module JSON of the Management API, with the records they show
 * (type key and name, a set's modules and tags), shared with the target, deployment and rollout
 * resources (a target's assignedDS, an action's distribution set, ...).
 * @see reference §3.9 (DS JSON), §3.12 (SM JSON)
 */
import {
  isComplete, DS_TAG, DS_TYPE, SM, SM_TYPE,
  type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord, type TagRecord,
} from '../../domain/repository.js';
import { modulesComplete } from '../../actors/distribution-sets.js';
import type { Request } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link } from '../kit/hal.js';

/** Rendering reads the store only. */
export type RepositoryViewDeps = Pick<KitDeps, 'store'>;

export interface SmView {
  readonly sm: SoftwareModuleRecord;
  readonly type: SoftwareModuleTypeRecord | undefined;
  /** It holds its type's minArtifacts artifacts (hawkBit 1.x). */
  readonly complete: boolean;
}

export interface DsView {
  readonly ds: DistributionSetRecord;
  readonly type: DistributionSetTypeRecord | undefined;
  readonly modules: readonly SmView[];
  readonly tags: readonly TagRecord[];
  readonly complete: boolean;
}

const FIRST_PAGE = 'offset=0&limit=50';

export async function joinSoftwareModules(
  deps: RepositoryViewDeps, tenant: Tenant, modules: readonly SoftwareModuleRecord[],
): Promise<SmView[]> {
  const types = await loadMap<SoftwareModuleTypeRecord>(deps.store, tenant, SM_TYPE, modules.map((m) => m.type));
  const typed = modules.map((sm) => ({ sm, type: types.get(sm.type) }));
  const complete = await modulesComplete(deps.store, tenant, typed);
  return typed.map((v, i) => ({ ...v, complete: complete[i] === true }));
}

export async function joinDistributionSets(
  deps: RepositoryViewDeps, tenant: Tenant, sets: readonly DistributionSetRecord[],
): Promise<DsView[]> {
  const { store } = deps;
  const [types, modules, tags] = await Promise.all([
    loadMap<DistributionSetTypeRecord>(store, tenant, DS_TYPE, sets.map((d) => d.type)),
    loadMap<SoftwareModuleRecord>(store, tenant, SM, sets.flatMap((d) => d.modules)),
    loadMap<TagRecord>(store, tenant, DS_TAG, sets.flatMap((d) => d.tags)),
  ]);
  const smViews = new Map((await joinSoftwareModules(deps, tenant, [...modules.values()])).map((v) => [v.sm.id, v]));
  return sets.map((ds) => {
    const type = types.get(ds.type);
    const mods = ds.modules.map((id) => smViews.get(id)).filter((v) => v !== undefined);
    return {
      ds,
      type,
      modules: mods,
      tags: ds.tags.map((id) => tags.get(id)).filter((t) => t !== undefined),
      complete: isComplete(type, mods.map((m) => ({ type: m.sm.type, complete: m.complete }))),
    };
  });
}

/** Full DS JSON, modules included, in the order given. */
export async function renderDistributionSets(
  deps: RepositoryViewDeps, tenant: Tenant, req: Request, sets: readonly DistributionSetRecord[],
): Promise<object[]> {
  return (await joinDistributionSets(deps, tenant, sets)).map((v) => dsJson(req, v));
}

/** SM JSON, in the order given. */
export async function renderSoftwareModules(
  deps: RepositoryViewDeps, tenant: Tenant, req: Request, modules: readonly SoftwareModuleRecord[],
): Promise<object[]> {
  return (await joinSoftwareModules(deps, tenant, modules)).map((v) => smJson(req, v));
}

function smJson(req: Request, v: SmView): object {
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
    complete: v.complete,
    _links: {
      self: link(req, self),
      artifacts: link(req, `${self}/artifacts`),
      type: link(req, `/rest/v1/softwaremoduletypes/${sm.type}`),
      metadata: link(req, `${self}/metadata?${FIRST_PAGE}`),
    },
  };
}

function dsJson(req: Request, v: DsView): object {
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
