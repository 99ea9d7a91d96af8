import type { AppModule } from '../../module.js';
import { rolloutRoutes, type RolloutAdvance, type RolloutDeps } from './rollout-routes.js';

/** Rollouts on the Management side (reference §3.7); the engine (a shared service the scheduler runs) advances a rollout for an operation. */
export function rolloutsModule(deps: RolloutDeps, engine: RolloutAdvance): AppModule {
  return { name: 'rollouts', routes: rolloutRoutes(deps, engine) };
}
