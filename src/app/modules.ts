/**
 * The registry of feature modules, beside the composition root (src/app/server.ts), which builds them on
 * the shared services (the store is open by then), concatenates their routes, calls each start() in
 * this order and each stop() in reverse. Add a module by appending its factory call below; each
 * takes the shared services as the narrow dependencies it declares.
 */
import { coreModule } from './core-module.js';
import type { AppModule } from '../module.js';
import { answerInCallersGeneration } from './generation-errors.js';
import type { Services } from './services.js';
import { consoleModule } from '../console/index.js';
import { ddiModule } from '../ddi/index.js';
import { dmfModule } from '../dmf/index.js';
import { deploymentsModule } from '../mgmt/deployments/index.js';
import { eventsModule } from '../mgmt/events/index.js';
import { repositoryModule } from '../mgmt/repository/index.js';
import { rolloutsModule } from '../mgmt/rollouts/index.js';
import { targetsModule } from '../mgmt/targets/index.js';
import { schedulerModule } from '../scheduler/index.js';
import { sessionModule } from '../session/index.js';
import { systemModule } from '../mgmt/system/index.js';
import { webhooksModule } from '../webhooks/index.js';

/** Builds the modules of one event loop (tests pass their own to src/app/server.ts). */
export type ModuleFactory = (services: Services) => readonly AppModule[];

export const buildModules: ModuleFactory = (services) => {
  const scheduler = schedulerModule(services);
  const modules = [
    coreModule(services), repositoryModule(services), targetsModule(services), ddiModule(services), deploymentsModule(services),
    rolloutsModule(services, services.rolloutEngine), scheduler, dmfModule(services),
    sessionModule(services),
    systemModule(services),
    eventsModule(services),
    webhooksModule(services),
    consoleModule(),
  ];
  // quota errors answer in the caller's tenant's generation (compat.managementApi): 403, or 429 in 1.x
  return modules.map((m) => ({ ...m, routes: answerInCallersGeneration(m.routes, services.tenantConfig) }));
};
