import type { EffectDispatcher } from '../../actors/dispatcher.js';
import type { ActorRuntime } from '../../actors/runtime.js';
import type { ArtifactStorage } from '../../artifacts/index.js';
import type { Quotas } from '../../domain/quotas.js';
import type { KitDeps } from '../kit/deps.js';

/** What the repository resources use besides the kit: quotas, artifact storage, and the runtime for invalidation. */
export interface RepositoryDeps extends KitDeps {
  readonly quotas: Pick<Quotas,
    | 'maxSoftwareModulesPerDistributionSet' | 'maxSoftwareModuleTypesPerDistributionSetType' | 'maxMetaDataEntriesPerSoftwareModule'
    | 'maxMetaDataEntriesPerDistributionSet' | 'maxArtifactSize' | 'maxArtifactStorage' | 'maxArtifactsPerSoftwareModule'>;
  readonly artifacts: Pick<ArtifactStorage, 'ingest' | 'open' | 'remove'>;
  readonly runtime: Pick<ActorRuntime, 'send'>;
  readonly dispatcher: Pick<EffectDispatcher, 'settle'>;
}
