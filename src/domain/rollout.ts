import type { ActionType } from './action.js';
import type { Audit } from './audit.js';
import type { KindSchema } from './record-schema.js';
import type { RolloutSafety } from './rollout-safety.js';
import type { Pace, ReleaseControls } from './rollout-release.js';

/**
 * Rollouts and their groups (reference §3.7, §4.6, §4.7; spec 2.9). Both are actors: their status
 * changes only through their machines (rollout.machine.ts, rollout-group.machine.ts), hosted by the
 * actor runtime. Which targets a group holds is kept in member records (ROLLOUT_MEMBERS, chunks of
 * target ids), written when the rollout is filled; the per-status counts of a group come from store
 * counters that every action transition of the group increments in its own commit
 * (rollout-counts.ts), so no group record is touched by finishing actions.
 */
export const ROLLOUT = 'rollout';
export const ROLLOUT_GROUP = 'rolloutgroup';
export const ROLLOUT_MEMBERS = 'rolloutmembers';

/** Rollout.RolloutStatus (reference §4.1), lower case as the Management API shows it. */
export const ROLLOUT_STATUSES = [
  'creating', 'waiting_for_approval', 'approval_denied', 'ready', 'paused', 'starting', 'stopped', 'stopping',
  'running', 'finished', 'deleting', 'deleted',
] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** The statuses before the start, in which PUT may still change a rollout's controls. */
export const NOT_STARTED: readonly RolloutStatus[] = ['creating', 'ready', 'waiting_for_approval', 'approval_denied'];

/** The statuses a regroup may still change the members in: before the start, and `starting` before its actions exist. */
export const REGROUPABLE: readonly RolloutStatus[] = [...NOT_STARTED, 'starting'];

/** RolloutGroup.RolloutGroupStatus (reference §4.1). */
export const GROUP_STATUSES = ['creating', 'ready', 'scheduled', 'finished', 'error', 'running'] as const;
export type GroupStatus = (typeof GROUP_STATUSES)[number];

/** The statuses the engine works on (reference §4.6: the others wait for an operator). */
export const ENGINE_STATUSES: readonly RolloutStatus[] = ['creating', 'ready', 'starting', 'running', 'stopping', 'deleting'];

export interface Condition {
  readonly condition: 'THRESHOLD';
  /** A percentage 0..100, as text (hawkBit keeps the expression a string). */
  readonly expression: string;
}
export interface SuccessAction {
  readonly action: 'NEXTGROUP' | 'PAUSE';
  readonly expression: string;
}
export interface ErrorAction {
  readonly action: 'PAUSE';
  readonly expression: string;
}

/** Success and error handling of a group (rollout-level values are the groups' defaults). */
export interface Conditions {
  readonly successCondition: Condition;
  readonly successAction: SuccessAction;
  readonly errorCondition: Condition;
  readonly errorAction: ErrorAction;
}

/** hawkBit's defaults when nothing is sent: success at 50 % → next group, error above 50 % → pause (reference §3.7). */
export const DEFAULT_CONDITIONS: Conditions = {
  successCondition: { condition: 'THRESHOLD', expression: '50' },
  successAction: { action: 'NEXTGROUP', expression: '' },
  errorCondition: { condition: 'THRESHOLD', expression: '50' },
  errorAction: { action: 'PAUSE', expression: '' },
};

/** A rollout as persisted; also the context of the rollout machine (`status` is its state value). */
export interface RolloutRecord extends Audit, Conditions, RolloutSafety {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly targetFilterQuery: string;
  readonly ds: number;
  readonly status: RolloutStatus;
  readonly actionType: ActionType;
  /** Time-forced actions become forced at this time (ms); 0 otherwise. */
  readonly forceTime: number;
  /** Auto-start time (ms), or null. */
  readonly startAt: number | null;
  readonly weight: number | null;
  readonly deleted: boolean;
  readonly totalTargets: number;
  /** The group ids, in order. */
  readonly groups: readonly number[];
  /** Whether the creator's rollout waits for approval once filled (approval on, creator lacks APPROVE_ROLLOUT). */
  readonly approvalNeeded: boolean;
  readonly approvalRemark: string | null;
  readonly approveDecidedBy: string | null;
  /** A retry rollout: the rollout whose failed targets it covers (`failedrollout==<id>`), else null. */
  readonly retryOf: number | null;
  /** A dynamic rollout: after its static groups, dynamic groups keep taking targets that match later (absent: false). */
  readonly dynamic?: boolean;
  /** Release controls (ramp, maxInFlight; rollout-release.ts); absent: a group start starts all its actions. */
  readonly release?: ReleaseControls;
  /** The engine's pacing state of a ramp (absent until the first release). */
  readonly pace?: Pace;
  /** When its `endAt` stopped it (ms); absent otherwise. */
  readonly endedAt?: number;
  /** A PUT changed `groupOrder` before the start: the members are divided again (scheduler/regroup.ts), then this goes. */
  readonly regroup?: boolean;
}

/** A rollout group as persisted; the context of the group machine. */
export interface RolloutGroupRecord extends Audit, Conditions {
  readonly id: number;
  readonly rollout: number;
  readonly name: string;
  readonly description: string | null;
  readonly status: GroupStatus;
  /** The group's own filter (ANDed with the rollout's), or null. */
  readonly targetFilterQuery: string | null;
  readonly targetPercentage: number;
  readonly confirmationRequired: boolean;
  readonly totalTargets: number;
  /** The group started after this one (null: the first). */
  readonly parent: number | null;
  /** The success action ran already (a group keeps running until complete). */
  readonly successHandled: boolean;
  /**
   * A dynamic group (absent: false): filled while the rollout runs, up to `targetPercentage` targets
   * (hawkBit keeps a dynamic group's target count there); `totalTargets` is how many it holds now.
   */
  readonly dynamic?: boolean;
  /** With a soak (rollout-release.ts): its successors start at this time (ms), set once it met its success condition. */
  readonly soakUntil?: number;
}

/** Target ids of one group, in chunks (a group of 20,000 targets is a few records). */
export interface RolloutMembersRecord {
  readonly id: number;
  readonly rollout: number;
  readonly group: number;
  readonly targets: readonly number[];
}

/** Target ids per member record. */
export const MEMBERS_CHUNK = 5000;

export const rolloutSchema: KindSchema<RolloutRecord, { unique: 'name'; multi: 'status' | 'ds' | 'abortPending' }> = {
  indexes: (r) => ({
    unique: r.deleted ? [] : [['name', r.name.toLowerCase()]],
    multi: [
      ['status', r.status], ['ds', String(r.ds)],
      // an aborted rollout whose actions the engine has still to handle (rollout-safety.ts)
      ...(r.abortPending === true && r.status === 'stopped' ? [['abortPending', '1'] as const] : []),
    ],
  }),
};

export const rolloutGroupSchema: KindSchema<RolloutGroupRecord, { unique: never; multi: 'rollout' }> = {
  indexes: (g) => ({ multi: [['rollout', String(g.rollout)]] }),
};

export const rolloutMembersSchema: KindSchema<RolloutMembersRecord, { unique: never; multi: 'group' | 'rollout' }> = {
  indexes: (m) => ({ multi: [['group', String(m.group)], ['rollout', String(m.rollout)]] }),
};
