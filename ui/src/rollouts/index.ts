/** The rollout pages of the console (routes.ts lists them). */
export { CreateWizard } from './create-wizard.js';
export { RolloutPage } from './rollout-page.js';
export { RolloutsList } from './rollouts-list.js';
