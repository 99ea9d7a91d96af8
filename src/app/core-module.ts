import type { AppModule } from '../module.js';
import type { Services } from './services.js';
import { bootstrapTenant } from '../tenancy/bootstrap.js';

/**
 * The core: each tenant's standard repository setup, and the effects dispatcher that carries
 * messages between actors. Feature modules contribute routes.
 */
export function coreModule(services: Services): AppModule {
  return {
    name: 'core',
    routes: [],
    async start() {
      await services.tenants.load();
      for (const tenant of services.tenants.list()) await bootstrapTenant(services.store, tenant, services.now());
      services.dispatcher.start();
    },
    async stop() {
      await services.dispatcher.stop();
      await services.dispatcher.drain().catch(() => 0);
    },
  };
}
