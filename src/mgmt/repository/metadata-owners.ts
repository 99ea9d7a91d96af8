/** The two repository metadata owners: software modules (entries with targetVisible) and distribution sets. */
import { touched } from '../../domain/audit.js';
import { DS, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Route } from '../../http/types.js';
import { ACCESS } from '../kit/access.js';
import { metadataRoutes } from '../kit/metadata.js';
import { pathId } from '../kit/request.js';
import { loadOr404, updateRecord } from '../kit/store.js';
import type { RepositoryDeps } from './deps.js';
import { assertLive } from './rules.js';

export function softwareModuleMetadataRoutes(deps: RepositoryDeps): Route[] {
  return metadataRoutes<SoftwareModuleRecord>(deps, {
    base: '/rest/v1/softwaremodules/:softwareModuleId',
    access: ACCESS.softwareModule,
    entryLabel: 'SoftwareModuleMetadata',
    quota: deps.quotas.maxMetaDataEntriesPerSoftwareModule,
    targetVisible: true,
    load: async (req, tenant) => (await loadOr404(deps.store, tenant, SM, pathId(req, 'softwareModuleId', 'SoftwareModule'))).value,
    entries: (m) => Object.entries(m.metadata).map(([key, e]) => ({ key, value: e.value, targetVisible: e.targetVisible })),
    change: async (tenant, owner, by, edit) => {
      await updateRecord(deps.store, tenant, SM, owner.id, (m) => {
        assertLive(m, 'SoftwareModule');
        const entries = edit(Object.entries(m.metadata).map(([key, e]) => ({ key, value: e.value, targetVisible: e.targetVisible })));
        const metadata = Object.fromEntries(entries.map((e) => [e.key, { value: e.value, targetVisible: e.targetVisible ?? false }]));
        return touched({ ...m, metadata }, by, deps.now());
      });
    },
  });
}

export function distributionSetMetadataRoutes(deps: RepositoryDeps): Route[] {
  return metadataRoutes<DistributionSetRecord>(deps, {
    base: '/rest/v1/distributionsets/:distributionSetId',
    access: ACCESS.distributionSet,
    entryLabel: 'DistributionSetMetadata',
    quota: deps.quotas.maxMetaDataEntriesPerDistributionSet,
    targetVisible: false,
    load: async (req, tenant) => (await loadOr404(deps.store, tenant, DS, pathId(req, 'distributionSetId', 'DistributionSet'))).value,
    entries: (d) => Object.entries(d.metadata).map(([key, value]) => ({ key, value })),
    change: async (tenant, owner, by, edit) => {
      await updateRecord(deps.store, tenant, DS, owner.id, (d) => {
        assertLive(d, 'DistributionSet');
        const entries = edit(Object.entries(d.metadata).map(([key, value]) => ({ key, value })));
        return touched({ ...d, metadata: Object.fromEntries(entries.map((e) => [e.key, e.value])) }, by, deps.now());
      });
    },
  });
}
