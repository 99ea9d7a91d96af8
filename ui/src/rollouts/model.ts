/**
 * The rollout JSON the console reads (reference §3.7): a rollout, its groups and their per-status
 * counts, as GET /rest/v1/rollouts/{id} and .../deploygroups?representation=full answer them.
 */

/** `totalTargetsPerStatus`: the targets of a rollout or group by the state of their action. */
export interface PerStatus {
  readonly finished: number;
  readonly error: number;
  readonly running: number;
  readonly scheduled: number;
  readonly notstarted: number;
  readonly cancelled: number;
}

export type RolloutStatus =
  | 'creating' | 'waiting_for_approval' | 'approval_denied' | 'ready' | 'paused' | 'starting' | 'stopped'
  | 'stopping' | 'running' | 'finished' | 'deleting' | 'deleted';

export type GroupStatus = 'creating' | 'ready' | 'scheduled' | 'finished' | 'error' | 'running';

export type ActionType = 'forced' | 'soft' | 'timeforced' | 'downloadonly';

export interface Condition {
  readonly condition: string;
  readonly expression: string;
}

export interface ConditionAction {
  readonly action: string;
  readonly expression?: string;
}

export interface Rollout {
  readonly id: number;
  readonly name: string;
  readonly description?: string;
  readonly targetFilterQuery: string;
  readonly distributionSetId: number;
  readonly status: RolloutStatus;
  readonly totalTargets: number;
  readonly type: ActionType;
  readonly forcetime?: number;
  readonly weight?: number;
  readonly deleted: boolean;
  readonly createdAt?: number;
  readonly createdBy?: string;
  readonly lastModifiedAt?: number;
  readonly totalTargetsPerStatus?: PerStatus;
  readonly totalGroups?: number;
  readonly startAt?: number;
  readonly approvalRemark?: string;
  readonly approveDecidedBy?: string;
}

export interface RolloutGroup {
  readonly id: number;
  readonly name: string;
  readonly description?: string;
  readonly status: GroupStatus;
  readonly targetFilterQuery: string;
  readonly targetPercentage: number;
  readonly totalTargets: number;
  readonly successCondition: Condition;
  readonly errorCondition: Condition;
  readonly successAction: ConditionAction;
  readonly errorAction: ConditionAction;
  readonly totalTargetsPerStatus?: PerStatus;
}

/** The statuses in which the server is still working on its own: shown with a spinner. */
export const BUSY_STATUSES: readonly RolloutStatus[] = ['creating', 'starting', 'stopping', 'deleting'];

/** Readable status names ("waiting_for_approval" -> "waiting for approval"). */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

export const rolloutPath = (id: number): string => `/rest/v1/rollouts/${id}`;
