import type { Services } from '../../app/services.js';
import { DS, TARGET_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { loadOr404, updateRecord } from '../kit/entities.js';
import { renderDistributionSets } from '../repository/views.js';
import { ACCESS } from './access.js';
import { tagJson } from './tag-json.js';
import { idBody } from './target-body.js';
import { loadMap } from './target-query.js';
import { loadTarget, loadTargetType } from './target-store.js';
import { idParam, principalOf, textParam } from './request.js';
import { listTargets } from './views.js';

/**
 * A target's attributes, tags, type and distribution sets, and the target lists of a distribution
 * set. (`/targets/{id}/actions*`, `assignedDS` POST and `autoConfirm*` belong to the deployments
 * module.) @see reference §3.1, §3.9
 */
export function targetSubRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const targetOf = async (req: Request): Promise<TargetRecord> => (await loadTarget(store(), principalOf(req).tenant, textParam(req, 'targetId'))).value;
  const base = '/rest/v1/targets/:targetId';
  const setType = async (req: Request, type: number | null): Promise<void> => {
    const { tenant, username } = principalOf(req);
    const target = await targetOf(req);
    const now = services.now();
    await updateRecord<TargetRecord>(store(), tenant, TARGET, target.id, 'Target', (t) => ({ ...t, targetType: type, lastModifiedBy: username, lastModifiedAt: now }));
  };
  const dsOf = (which: 'assignedDs' | 'installedDs'): Route => ({
    method: 'GET', path: `${base}/${which === 'assignedDs' ? 'assignedDS' : 'installedDS'}`, auth: services.mgmtAuth(ACCESS.readTargetAndRepository),
    handler: async (req) => {
      const { tenant } = principalOf(req);
      const id = (await targetOf(req))[which];
      const ds = id === null ? undefined : await store().get<DistributionSetRecord>(tenant, DS, id);
      if (ds === undefined) return { status: 204 };
      return { status: 200, json: (await renderDistributionSets(services, tenant, req, [ds.value]))[0] };
    },
  });
  const dsTargets = (path: string, index: string): Route => ({
    method: 'GET', path: `/rest/v1/distributionsets/:distributionSetId/${path}`, auth: services.mgmtAuth(ACCESS.readTargetAndRepository),
    handler: async (req) => {
      const { tenant } = principalOf(req);
      const ds = await loadOr404<DistributionSetRecord>(store(), tenant, DS, idParam(req, 'distributionSetId', 'DistributionSet'), 'DistributionSet');
      return { status: 200, json: await listTargets(services, tenant, req, { within: { index, key: String(ds.id) } }) };
    },
  });
  return [
    {
      method: 'GET', path: `${base}/attributes`, auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const { attributes } = await targetOf(req);
        return Object.keys(attributes).length === 0 ? { status: 204 } : { status: 200, json: attributes };
      },
    },
    {
      method: 'GET', path: `${base}/tags`, auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const target = await targetOf(req);
        const tags = await loadMap<TagRecord>(store(), principalOf(req).tenant, TARGET_TAG, target.tags);
        return { status: 200, json: target.tags.flatMap((id) => { const t = tags.get(id); return t === undefined ? [] : [tagJson(req, t, false)]; }) };
      },
    },
    {
      method: 'POST', path: `${base}/targettype`, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { id } = readJson(req, idBody);
        await loadTargetType(store(), principalOf(req).tenant, id);
        await setType(req, id);
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${base}/targettype`, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        await setType(req, null);
        return { status: 204 };
      },
    },
    dsOf('assignedDs'),
    dsOf('installedDs'),
    dsTargets('assignedTargets', 'assignedDs'),
    dsTargets('installedTargets', 'installedDs'),
  ];
}
