import type { EffectDispatcher } from '../../actors/dispatcher.js';
import type { ActorSender } from '../../actors/roles.js';
import type { ArtifactStorage } from '../../artifacts/index.js';
import type { Quotas } from '../../domain/quotas.js';
import type { TenantConfigService } from '../../tenancy/tenant-config-service.js';
import type { KitDeps } from '../kit/deps.js';

/**
 * What the repository resources use besides the kit: quotas, artifact storage, the runtime for
 * invalidation, and the tenant's default distribution set type.
 */
export interface RepositoryDeps extends KitDeps {
  readonly tenantConfig: Pick<TenantConfigService, 'view' | 'defaultDsType'>;
  readonly quotas: Pick<Quotas,
    | 'maxSoftwareModulesPerDistributionSet' | 'maxSoftwareModuleTypesPerDistributionSetType' | 'maxMetaDataEntriesPerSoftwareModule'
    | 'maxMetaDataEntriesPerDistributionSet' | 'maxArtifactSize' | 'maxArtifactStorage' | 'maxArtifactsPerSoftwareModule'>;
  readonly artifacts: Pick<ArtifactStorage, 'ingest' | 'open' | 'remove'>;
  readonly runtime: ActorSender;
  readonly dispatcher: Pick<EffectDispatcher, 'settle'>;
}
