/**
 * The registry of feature modules. The composition root (src/server.ts) concatenates every module's
 * schema and routes, opens the store with the combined schema, calls each start() in this order and
 * each stop() in reverse. Add a module by appending its factory call below.
 */
import { coreModule } from './core-module.js';
import type { AppModule, ModuleContext, ModuleFactory } from './module.js';
import { createServices } from './services.js';

export const buildModules: ModuleFactory = (ctx: ModuleContext): readonly AppModule[] => {
  const services = createServices(ctx);
  return [coreModule(services)];
};
