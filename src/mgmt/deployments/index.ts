import type { AppModule } from '../../module.js';
import { actionDeletionRoutes } from './action-deletion-routes.js';
import { actionRoutes } from './action-routes.js';
import { assignmentRoutes } from './assignment-routes.js';
import { autoConfirmRoutes } from './auto-confirm-routes.js';
import type { DeploymentDeps } from './deps.js';
import { statusRoutes } from './status-routes.js';

/**
 * Deployments on the Management side: assignments from both sides, actions and their history,
 * and auto-confirmation of targets (reference §3.1, §3.6, §3.9, §3.16).
 */
export function deploymentsModule(deps: DeploymentDeps): AppModule {
  return {
    name: 'deployments',
    routes: [
      ...assignmentRoutes(deps), ...actionRoutes(deps), ...actionDeletionRoutes(deps), ...statusRoutes(deps), ...autoConfirmRoutes(deps),
    ],
  };
}
