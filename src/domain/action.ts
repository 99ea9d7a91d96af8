import type { Audit } from './audit.js';
import type { KindSchema } from './record-schema.js';

/** Action.Status of the reference (§4.1), lower case as the Management API shows it. */
export const ACTION_STATUSES = [
  'finished', 'error', 'warning', 'running', 'canceled', 'canceling', 'retrieved', 'download',
  'scheduled', 'cancel_rejected', 'downloaded', 'wait_for_confirmation',
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export const ACTION_TYPES = ['forced', 'soft', 'timeforced', 'downloadonly'] as const;

/** hawkBit's `action-weight-if-absent`: the weight of an action created without one (reference §3.16, §4.5). */
export const WEIGHT_IF_ABSENT = 1000;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface MaintenanceWindow {
  readonly schedule: string;
  readonly duration: string;
  readonly timezone: string;
}

/** An action as persisted; also the context of the action machine (`status` is its state value). */
export interface ActionRecord extends Audit {
  readonly id: number;
  readonly targetId: number;
  readonly controllerId: string;
  readonly ds: number;
  readonly actionType: ActionType;
  readonly forceTime: number;
  readonly weight: number | null;
  readonly status: ActionStatus;
  readonly active: boolean;
  readonly maintenanceWindow: MaintenanceWindow | null;
  readonly rollout: number | null;
  readonly rolloutGroup: number | null;
  readonly lastStatusCode: number | null;
  readonly externalRef: string | null;
  /** Type of the newest status entry, so a repeated retrieval does not add another entry. */
  readonly lastEntry: ActionStatus | null;
  /** Count of status entries, for the per-action quota. */
  readonly entries: number;
  /**
   * The request path of the newest status entry when that entry is a DOWNLOAD (absent otherwise), so a
   * whole download repeated with nothing recorded in between adds no entry (`repeatsDownload`).
   */
  readonly lastDownload?: string;
  /**
   * A rollback action of an aborted rollout (rollout-safety.ts; absent: false): listed under the
   * rollout, but neither in its counts nor in its one-action-per-target key.
   */
  readonly rollback?: boolean;
  /** When its rollout group started it (ms); absent on other actions. */
  readonly startedAt?: number;
  /** Closed as a timeout by its rollout's actionTimeout (rollout-safety.ts; absent: false). */
  readonly timedOut?: boolean;
  /** Its rollout's `retry` (rollout-safety.ts): the attempt of its target this is (absent: 1). */
  readonly attempt?: number;
  /** Retries of its target before this attempt, by kind (absent: none). */
  readonly retriesUsed?: { readonly failed: number; readonly timedOut: number };
  /** In error and waiting for its retry, due at this time (ms); counted as `retrying`, not as an error. */
  readonly retryAt?: number | null;
  /** A newer attempt replaced it: counted no more. */
  readonly retried?: boolean;
  /** Its retry could not be made (its target is gone): an error again, for good. */
  readonly retryStopped?: boolean;
  /** Of a rollout with `verifyInstall` (rollout-safety.ts): its success counts only once the device confirms it. */
  readonly verifyInstall?: boolean;
  /** Of a rollout with `verifyInstall.attribute`: the device attribute that names the version it runs (install-check.ts). */
  readonly verifyAttribute?: string;
  /** Closed with success, its install not confirmed yet: counted as `verifying` (open), not as finished. */
  readonly verifying?: boolean;
}

/** One entry of an action's status history (Mgmt `.../actions/{id}/status`). */
export interface ActionStatusRecord {
  readonly id: number;
  readonly actionId: number;
  readonly type: ActionStatus;
  readonly messages: readonly string[];
  /** Server time the entry was stored. */
  readonly reportedAt: number;
  /** Device time of the status change (feedback `timestamp`), else server time. */
  readonly timestamp: number;
  readonly code: number | null;
}

export const ACTION = 'action';
export const ACTION_STATUS = 'actionstatus';

export const INACTIVE_STATUSES: ReadonlySet<ActionStatus> = new Set(['finished', 'error', 'canceled', 'downloaded', 'scheduled']);
export function isActive(status: ActionStatus): boolean {
  return !INACTIVE_STATUSES.has(status);
}
/** The statuses of an open action (isActive), in ACTION_STATUSES order. */
export const ACTIVE_STATUSES: readonly ActionStatus[] = ACTION_STATUSES.filter(isActive);

/** Server-generated messages start with this prefix and are hidden from the DDI action history. */
export const SERVER_MESSAGE_PREFIX = 'Update Server: ';

/** The key of a rollout action in the `rolloutTarget` unique index: one action of a rollout per target. */
export const rolloutTargetKey = (rollout: number, targetId: number, rollback = false, attempt = 1): string =>
  `${rollout}:${targetId}${rollback ? ':rollback' : ''}${attempt > 1 ? `:a${attempt}` : ''}`;

export const actionSchema: KindSchema<ActionRecord, {
  unique: 'rolloutTarget';
  multi: 'target' | 'ds' | 'status' | 'activeByTarget' | 'rollout' | 'rolloutGroup';
}> = {
  // no index of `active`: it follows from the status (the runtime's finalize keeps it so), whose index
  // answers it (the `active` query field, the open actions named-reads.ts reads): two sorted-set
  // commands fewer whenever an action opens or closes
  indexes: (a) => ({
    unique: a.rollout === null ? [] : [['rolloutTarget', rolloutTargetKey(a.rollout, a.targetId, a.rollback === true, a.attempt ?? 1)]],
    multi: [
      ['target', String(a.targetId)],
      ['ds', String(a.ds)],
      ['status', a.status],
      ...(a.active ? [['activeByTarget', String(a.targetId)] as const] : []),
      ...(a.rollout === null ? [] : [['rollout', String(a.rollout)] as const]),
      ...(a.rolloutGroup === null ? [] : [['rolloutGroup', String(a.rolloutGroup)] as const]),
    ],
  }),
};

export const actionStatusSchema: KindSchema<ActionStatusRecord, { unique: never; multi: 'action' }> = {
  indexes: (s) => ({ multi: [['action', String(s.actionId)]] }),
  // read per action only (the Management API's status list, DDI's actionHistory, an action's removal)
  unlisted: true,
  // created once, never changed, read seldom: about 4 per finished update (docs/capacity.md)
  packed: true,
};

/**
 * The device downloads the file at `uri` again and nothing was recorded since its last whole download of
 * it: the DOWNLOAD entry it would add says nothing new (the action machine's guard; the download route
 * checks it first, so a repeated download costs no actor round).
 */
export function repeatsDownload(action: Pick<ActionRecord, 'lastEntry' | 'lastDownload'>, uri: string): boolean {
  return action.lastEntry === 'download' && action.lastDownload === uri;
}

/** `action.delete.allowed.statuses` / `action.cleanup.actionStatus`: a comma-separated list, any case. */
export function statusSet(csv: string): ReadonlySet<string> {
  return new Set(csv.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0));
}
