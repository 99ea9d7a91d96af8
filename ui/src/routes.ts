/**
 * The console's pages: one line each. `nav` puts a page in the navigation, in `order`, for operators
 * holding `permission` (any of a list). The sign-in page is the shell's, not a route.
 */
import type { RouteDef } from './router.js';
import { FiltersList } from './filters/filters-list.js';
import { CreateWizard, RolloutPage, RolloutsList } from './rollouts/index.js';
import { ConfigView } from './views/config/config-view.js';
import { FleetView } from './views/fleet/fleet-view.js';
import { DistributionSetView } from './views/repository/distribution-set-view.js';
import { ModuleView } from './views/repository/module-view.js';
import { RepositoryView } from './views/repository/repository-view.js';
import { TargetView } from './views/targets/target-view.js';
import { TargetsView } from './views/targets/targets-view.js';

export const ROUTES: RouteDef[] = [
  { pattern: '/', view: FleetView, nav: { label: 'Fleet', order: 10, permission: 'READ_TARGET' } },
  { pattern: '/targets', view: TargetsView, nav: { label: 'Targets', order: 20, permission: 'READ_TARGET' } },
  { pattern: '/targets/:id', view: TargetView },
  { pattern: '/rollouts', view: RolloutsList, nav: { label: 'Rollouts', order: 30, permission: 'READ_ROLLOUT' } },
  { pattern: '/rollouts/new', view: CreateWizard },
  { pattern: '/rollouts/:id', view: RolloutPage },
  { pattern: '/targetfilters', view: FiltersList, nav: { label: 'Target filters', order: 35, permission: 'READ_TARGET' } },
  { pattern: '/repository', view: RepositoryView, nav: { label: 'Repository', order: 50, permission: ['READ_REPOSITORY', 'READ_SOFTWARE_MODULE', 'READ_DISTRIBUTION_SET'] } },
  { pattern: '/repository/modules/:id', view: ModuleView },
  { pattern: '/repository/sets/:id', view: DistributionSetView },
  { pattern: '/config', view: ConfigView, nav: { label: 'Configuration', order: 90, permission: ['READ_TENANT_CONFIGURATION', 'TENANT_CONFIGURATION'] } },
];
