/**
 * The Management API repository resources: software module types, software modules, artifacts,
 * distribution set types, distribution sets and distribution set tags.
 * @see reference §3.9-3.13, spec 4.2-4.3
 */
import type { AppModule } from '../../module.js';
import { artifactUploadRoutes } from './artifact-upload.js';
import { artifactRoutes } from './artifacts.js';
import type { RepositoryDeps } from './deps.js';
import { dsStatisticsRoutes } from './ds-statistics.js';
import { distributionSetRoutes } from './distribution-sets.js';
import { dsLifecycleRoutes } from './ds-lifecycle.js';
import { dsModuleRoutes } from './ds-modules.js';
import { dsTagRoutes } from './ds-tags.js';
import { dsTypeModuleRoutes } from './ds-type-modules.js';
import { dsTypeRoutes } from './ds-types.js';
import { distributionSetMetadataRoutes, softwareModuleMetadataRoutes } from './metadata-owners.js';
import { smTypeRoutes } from './sm-types.js';
import { softwareModuleRoutes } from './software-modules.js';

export function repositoryModule(deps: RepositoryDeps): AppModule {
  return {
    name: 'repository',
    routes: [
      ...smTypeRoutes(deps),
      ...softwareModuleRoutes(deps),
      ...softwareModuleMetadataRoutes(deps),
      ...artifactRoutes(deps),
      ...artifactUploadRoutes(deps),
      ...dsTypeRoutes(deps),
      ...dsTypeModuleRoutes(deps),
      ...distributionSetRoutes(deps),
      ...dsModuleRoutes(deps),
      ...distributionSetMetadataRoutes(deps),
      ...dsLifecycleRoutes(deps),
      ...dsStatisticsRoutes(deps),
      ...dsTagRoutes(deps),
    ],
  };
}
