import { z } from 'zod';
import type { ActorEditor } from '../../actors/roles.js';
import { DS, TARGET_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE } from '../../domain/targeting.js';
import type { Request, Route } from '../../http/types.js';
import type { Within } from '../../query/list.js';
import { loadMap } from '../../store/reads.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { ACCESS, READ_TARGET_AND_REPOSITORY } from '../kit/access.js';
import { id, readBody } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf, pathId, pathText } from '../kit/request.js';
import { loadLiveOr404, loadOr404 } from '../kit/store.js';
import { renderDistributionSets } from '../repository/views.js';
import { targetTagJson } from './tag-routes.js';
import { listTargets } from './target-json.js';
import { editActor } from '../kit/actor-edit.js';
import { loadActorByKeyOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from './target-store.js';
import { targetResponse } from './responses.js';
import { distributionSetResponse } from '../repository/responses.js';
import { tagResponse } from '../kit/responses.js';

export interface TargetSubDeps extends KitDeps {
  readonly runtime: ActorEditor;
}

const idBody = z.object({ id: id() });

/**
 * A target's attributes, tags, type and distribution sets, and the target lists of a distribution
 * set. (`/targets/{id}/actions*`, `assignedDS` POST and `autoConfirm*` belong to the deployments
 * module.) @see reference §3.1, §3.9
 */
export function targetSubRoutes(deps: TargetSubDeps): Route[] {
  const targetOf = async (req: Request): Promise<TargetRecord> => (await loadActorByKeyOr404(deps.store, callerOf(req).tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'))).value;
  const base = '/rest/v1/targets/:targetId';
  const setType = async (req: Request, type: number | null): Promise<void> => {
    const { tenant, username } = callerOf(req);
    const target = await targetOf(req);
    await editActor(deps, tenant, TARGET, target.id, username, (t) => ({ ...t, targetType: type }), target.controllerId);
  };
  const dsOf = (which: 'assignedDs' | 'installedDs'): Route => ({
    method: 'GET', path: `${base}/${which === 'assignedDs' ? 'assignedDS' : 'installedDS'}`, auth: deps.mgmtAuth(READ_TARGET_AND_REPOSITORY),
    doc: { description: '204 when the target has none', response: distributionSetResponse },
    handler: async (req) => {
      const { tenant } = callerOf(req);
      const id = (await targetOf(req))[which];
      const ds = id === null ? undefined : await deps.store.get<DistributionSetRecord>(tenant, DS, id);
      if (ds === undefined) return { status: 204 };
      return { status: 200, json: (await renderDistributionSets(deps, tenant, req, [ds.value]))[0] };
    },
  });
  const dsTargets = (path: string, index: Within<typeof TARGET>['index']): Route => ({
    method: 'GET', path: `/rest/v1/distributionsets/:distributionSetId/${path}`, auth: deps.mgmtAuth(READ_TARGET_AND_REPOSITORY),
    doc: { list: true, response: pageSchema(targetResponse) },
    handler: async (req) => {
      const { tenant } = callerOf(req);
      const ds = await loadOr404(deps.store, tenant, DS, pathId(req, 'distributionSetId', 'DistributionSet'));
      return { status: 200, json: await listTargets(deps, tenant, req, { index, key: String(ds.id) }) };
    },
  });
  return [
    {
      method: 'GET', path: `${base}/attributes`, auth: deps.mgmtAuth(ACCESS.target.read),
      doc: { description: '204 when the target has reported none', response: z.record(z.string(), z.string()) },
      handler: async (req) => {
        const { attributes } = await targetOf(req);
        return Object.keys(attributes).length === 0 ? { status: 204 } : { status: 200, json: attributes };
      },
    },
    {
      method: 'GET', path: `${base}/tags`, auth: deps.mgmtAuth(ACCESS.target.read), doc: { response: z.array(tagResponse) },
      handler: async (req) => {
        const target = await targetOf(req);
        const tags = await loadMap<TagRecord>(deps.store, callerOf(req).tenant, TARGET_TAG, target.tags);
        return {
          status: 200,
          json: target.tags.flatMap((id) => {
            const t = tags.get(id);
            return t === undefined ? [] : [targetTagJson(req, t, false)];
          }),
        };
      },
    },
    {
      method: 'POST', path: `${base}/targettype`, auth: deps.mgmtAuth(ACCESS.target.update), doc: { body: idBody, response: { status: 204 } },
      handler: async (req) => {
        const body = readBody(req, idBody);
        await loadLiveOr404(deps.store, callerOf(req).tenant, TARGET_TYPE, body.id);
        await setType(req, body.id);
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${base}/targettype`, auth: deps.mgmtAuth(ACCESS.target.update), doc: { response: { status: 204 } },
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
