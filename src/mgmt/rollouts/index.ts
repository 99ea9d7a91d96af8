import type { AppModule } from '../../module.js';
import { rolloutRoutes, type RolloutAdvance, type RolloutDeps } from './rollout-routes.js';

/** Rollouts on the Management side (reference §3.7); the engine runs in the scheduler, which hands it over. */
export function rolloutsModule(deps: RolloutDeps, engine: RolloutAdvance): AppModule {
  return { name: 'rollouts', routes: rolloutRoutes(deps, engine) };
}
