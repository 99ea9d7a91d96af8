import type { AppModule } from './module.js';
import { SCHEMA } from './schema.js';
import type { Services } from './services.js';
import { bootstrapTenant } from '../tenancy/bootstrap.js';

/**
 * The core: every record kind (one schema for all modules), each tenant's standard repository setup,
 * and the effects dispatcher that carries messages between actors. Feature modules contribute routes only.
 */
export function coreModule(services: Services): AppModule {
  return {
    name: 'core',
    schema: SCHEMA,
    routes: [],
    async start() {
      for (const tenant of services.tenants) await bootstrapTenant(services.ctx.store, tenant, services.now());
      services.dispatcher.start();
    },
    async stop() {
      await services.dispatcher.stop();
      await services.dispatcher.drain().catch(() => 0);
      await services.close();
    },
  };
}
