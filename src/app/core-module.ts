import type { AppModule } from './module.js';
import { SCHEMA } from './schema.js';
import type { Services } from './services.js';

/**
 * The core: every record kind (one schema for all modules), and the effects dispatcher that carries
 * messages between actors. Feature modules contribute routes only.
 */
export function coreModule(services: Services): AppModule {
  return {
    name: 'core',
    schema: SCHEMA,
    routes: [],
    async start() {
      services.dispatcher.start();
    },
    async stop() {
      await services.dispatcher.stop();
      await services.dispatcher.drain().catch(() => 0);
      await services.close();
    },
  };
}
