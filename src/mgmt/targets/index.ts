import type { AppModule } from '../../module.js';
import type { Quotas } from '../../domain/quotas.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { configRoutes, type ConfigDeps } from '../config/config-routes.js';
import { userinfoRoutes } from '../config/userinfo.js';
import { ACCESS } from '../kit/access.js';
import { metadataRoutes } from '../kit/metadata.js';
import { pathText } from '../kit/request.js';
import { filterRoutes, type TargetFilterDeps } from './filter-routes.js';
import { targetGroupRoutes, type TargetGroupDeps } from './group-routes.js';
import { targetTagRoutes, type TargetTagDeps } from './tag-routes.js';
import { targetRoutes, type TargetDeps } from './target-routes.js';
import { editActor } from '../kit/actor-edit.js';
import { loadActorByKeyOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from './target-store.js';
import { targetSubRoutes, type TargetSubDeps } from './target-sub-routes.js';
import { targetTypeRoutes, type TargetTypeDeps } from './type-routes.js';

export type TargetsModuleDeps = TargetDeps & TargetSubDeps & TargetTagDeps & TargetTypeDeps & TargetFilterDeps & TargetGroupDeps
  & ConfigDeps & { readonly quotas: Pick<Quotas, 'maxMetaDataEntriesPerTarget'> };

/**
 * The target side of the Management API: targets, target tags, target types, target filters, the
 * tenant configuration and userinfo. @see reference §3.1-3.4, §3.14, §3.15; spec 4.2, 4.4, 4.5, 4.7
 */
export function targetsModule(deps: TargetsModuleDeps): AppModule {
  return {
    name: 'mgmt-targets',
    routes: [
      ...targetRoutes(deps),
      ...targetSubRoutes(deps),
      ...metadataRoutes<TargetRecord>(deps, {
        base: '/rest/v1/targets/:targetId',
        access: ACCESS.targetMetadata,
        entryLabel: 'TargetMetadata',
        quota: deps.quotas.maxMetaDataEntriesPerTarget,
        targetVisible: false,
        load: async (req, tenant) => (await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'))).value,
        entries: (t) => Object.entries(t.metadata).map(([key, value]) => ({ key, value })),
        change: async (tenant, target, by, edit) => {
          await editActor(deps, tenant, TARGET, target.id, by, (t) => ({
            ...t,
            metadata: Object.fromEntries(
              edit(Object.entries(t.metadata).map(([key, value]) => ({ key, value }))).map((e) => [e.key, e.value]),
            ),
          }), target.controllerId);
        },
      }),
      ...targetTagRoutes(deps),
      ...targetTypeRoutes(deps),
      ...filterRoutes(deps),
      ...targetGroupRoutes(deps),
      ...configRoutes(deps),
      ...userinfoRoutes(deps),
    ],
  };
}
