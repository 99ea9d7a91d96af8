import type { AutoConfirmDeps } from '../../actors/auto-confirm.js';
import type { ModuleContext } from '../../module.js';
import type { RemovalDeps } from '../../actors/removal.js';
import type { ActorEditor } from '../../actors/roles.js';
import type { Quotas } from '../../domain/quotas.js';
import type { CommandDeps } from '../kit/commands.js';
import type { KitDeps } from '../kit/deps.js';

/** What the deployment resources use besides the kit: the actor runtime, the quotas of actions and the log. */
export type DeploymentDeps = KitDeps & CommandDeps & RemovalDeps & AutoConfirmDeps & {
  readonly ctx: Pick<ModuleContext, 'logger'>;
  readonly runtime: ActorEditor;
  readonly quotas: Pick<Quotas, 'maxActionsPerTarget' | 'maxTargetDistributionSetAssignmentsPerManualAssignment'
    | 'maxStatusEntriesPerAction' | 'maxMessagesPerActionStatus'>;
};
