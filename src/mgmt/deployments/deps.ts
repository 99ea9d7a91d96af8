import type { AutoConfirmDeps } from '../../actors/auto-confirm.js';
import type { RemovalDeps } from '../../actors/removal.js';
import type { ActorRuntime } from '../../actors/runtime.js';
import type { Quotas } from '../../domain/quotas.js';
import type { CommandDeps } from '../kit/commands.js';
import type { KitDeps } from '../kit/deps.js';

/** What the deployment resources use besides the kit: the actor runtime and the quotas of actions. */
export type DeploymentDeps = KitDeps & CommandDeps & RemovalDeps & AutoConfirmDeps & {
  readonly runtime: Pick<ActorRuntime, 'send' | 'creation' | 'update' | 'remove'>;
  readonly quotas: Pick<Quotas, 'maxActionsPerTarget' | 'maxTargetDistributionSetAssignmentsPerManualAssignment'
    | 'maxStatusEntriesPerAction' | 'maxMessagesPerActionStatus'>;
};
