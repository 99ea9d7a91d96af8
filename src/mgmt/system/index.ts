import type { AppModule } from '../../module.js';
import { tenantRoutes, type TenantRouteDeps } from './tenant-routes.js';

/** System administration: the tenants created and deleted at runtime (src/tenancy/registry.ts keeps them). */
export function systemModule(deps: TenantRouteDeps): AppModule {
  return { name: 'system', routes: tenantRoutes(deps) };
}
