/** The two metadata owners: software modules (with targetVisible) and distribution sets. */
import type { Services } from '../../app/services.js';
import { DS, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Route } from '../../http/types.js';
import { areaAuth } from './auth.js';
import { metadataRoutes } from './metadata.js';

export function softwareModuleMetadataRoutes(services: Services): Route[] {
  return metadataRoutes<SoftwareModuleRecord>(services, {
    kind: SM,
    label: 'SoftwareModule',
    entryLabel: 'SoftwareModuleMetadata',
    idParam: 'softwareModuleId',
    base: '/rest/v1/softwaremodules/:softwareModuleId',
    quota: services.quotas.maxMetaDataEntriesPerSoftwareModule,
    targetVisible: true,
    entries: (m) => Object.entries(m.metadata).map(([key, e]) => ({ key, value: e.value, targetVisible: e.targetVisible })),
    withEntries: (m, entries) => ({
      ...m,
      metadata: Object.fromEntries(entries.map((e) => [e.key, { value: e.value, targetVisible: e.targetVisible ?? false }])),
    }),
  }, areaAuth(services, 'SOFTWARE_MODULE'));
}

export function distributionSetMetadataRoutes(services: Services): Route[] {
  return metadataRoutes<DistributionSetRecord>(services, {
    kind: DS,
    label: 'DistributionSet',
    entryLabel: 'DistributionSetMetadata',
    idParam: 'distributionSetId',
    base: '/rest/v1/distributionsets/:distributionSetId',
    quota: services.quotas.maxMetaDataEntriesPerDistributionSet,
    targetVisible: false,
    entries: (d) => Object.entries(d.metadata).map(([key, value]) => ({ key, value })),
    withEntries: (d, entries) => ({ ...d, metadata: Object.fromEntries(entries.map((e) => [e.key, e.value])) }),
  }, areaAuth(services, 'DISTRIBUTION_SET'));
}
