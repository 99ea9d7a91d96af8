import type { RolloutGroup, RolloutStatus } from './model.js';

/**
 * The operations of the rollout page, when each is valid (reference §3.7, src/domain/rollout.machine.ts)
 * and the permission its route checks (src/mgmt/rollouts/rollout-routes.ts): a user without it sees no
 * button for it.
 */
export type OperationName = 'start' | 'pause' | 'resume' | 'approve' | 'deny' | 'triggerNextGroup' | 'retry' | 'stop' | 'delete';

export interface Operation {
  readonly name: OperationName;
  readonly label: string;
  readonly permission: string;
  /** Asks for confirmation (and for approve/deny a remark) before it is sent. */
  readonly confirm?: string;
  readonly remark?: boolean;
  readonly variant?: 'primary' | 'danger';
  readonly validIn: (status: RolloutStatus, groups: readonly RolloutGroup[]) => boolean;
}

const STOPPABLE: readonly RolloutStatus[] = ['creating', 'waiting_for_approval', 'approval_denied', 'ready', 'starting', 'running', 'paused'];
const is = (...statuses: RolloutStatus[]) => (status: RolloutStatus): boolean => statuses.includes(status);

export const OPERATIONS: readonly Operation[] = [
  { name: 'start', label: 'Start', permission: 'HANDLE_ROLLOUT', variant: 'primary', validIn: is('ready') },
  { name: 'approve', label: 'Approve', permission: 'APPROVE_ROLLOUT', variant: 'primary', remark: true, validIn: is('waiting_for_approval') },
  { name: 'deny', label: 'Deny', permission: 'APPROVE_ROLLOUT', variant: 'danger', remark: true, validIn: is('waiting_for_approval') },
  { name: 'pause', label: 'Pause', permission: 'HANDLE_ROLLOUT', validIn: is('running') },
  { name: 'resume', label: 'Resume', permission: 'HANDLE_ROLLOUT', variant: 'primary', validIn: is('paused') },
  {
    name: 'triggerNextGroup', label: 'Trigger next group', permission: 'HANDLE_ROLLOUT',
    confirm: 'Start the next scheduled group now, without waiting for the success condition?',
    validIn: (status, groups) => status === 'running' && groups.some((g) => g.status === 'scheduled'),
  },
  { name: 'retry', label: 'Retry failed', permission: 'CREATE_ROLLOUT', confirm: 'Create a new rollout over the targets that failed?', validIn: is('finished') },
  {
    name: 'stop', label: 'Stop', permission: 'HANDLE_ROLLOUT', variant: 'danger',
    confirm: 'Stop the rollout? Scheduled actions are removed and running ones are cancelled.', validIn: (s) => STOPPABLE.includes(s),
  },
  {
    name: 'delete', label: 'Delete', permission: 'DELETE_ROLLOUT', variant: 'danger',
    confirm: 'Delete the rollout? One that started actions stays listed as deleted.', validIn: (s) => s !== 'deleting' && s !== 'deleted',
  },
];

/** The operations valid in this status, in button order. */
export function operationsFor(status: RolloutStatus, groups: readonly RolloutGroup[]): Operation[] {
  return OPERATIONS.filter((op) => op.validIn(status, groups));
}

/** The request an operation sends: `[method, path]`; approve and deny carry the remark as `?remark=`. */
export function operationRequest(op: OperationName, rolloutId: number, remark = ''): readonly ['POST' | 'DELETE', string] {
  const base = `/rest/v1/rollouts/${rolloutId}`;
  if (op === 'delete') return ['DELETE', base];
  const query = (op === 'approve' || op === 'deny') && remark.trim() !== '' ? `?remark=${encodeURIComponent(remark.trim())}` : '';
  return ['POST', `${base}/${op}${query}`];
}
