import type { AppModule } from '../../app/module.js';
import type { Services } from '../../app/services.js';
import { configRoutes } from '../config/config-routes.js';
import { userinfoRoutes } from '../config/userinfo.js';
import { filterRoutes } from './filter-routes.js';
import { tagRoutes } from './tag-routes.js';
import { targetMetadataRoutes } from './target-metadata.js';
import { targetRoutes } from './target-routes.js';
import { targetSubRoutes } from './target-sub-routes.js';
import { typeRoutes } from './type-routes.js';

/**
 * The target side of the Management API: targets, target tags, target types, target filters, the
 * tenant configuration and userinfo. @see reference §3.1-3.4, §3.14, §3.15; spec 4.2, 4.4, 4.5, 4.7
 */
export function targetsModule(services: Services): AppModule {
  return {
    name: 'mgmt-targets',
    schema: {},
    routes: [
      ...targetRoutes(services),
      ...targetSubRoutes(services),
      ...targetMetadataRoutes(services),
      ...tagRoutes(services),
      ...typeRoutes(services),
      ...filterRoutes(services),
      ...configRoutes(services),
      ...userinfoRoutes(services),
    ],
  };
}
