import type { AppModule } from '../../app/module.js';
import { rolloutRoutes, type RolloutDeps } from './rollout-routes.js';

/** Rollouts on the Management side (reference §3.7); the engine runs in the scheduler. */
export function rolloutsModule(deps: RolloutDeps): AppModule {
  return { name: 'rollouts', schema: {}, routes: rolloutRoutes(deps) };
}
