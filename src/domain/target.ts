import type { Audit } from './audit.js';
import type { KindSchema } from './record-schema.js';

/** @see reference/hawkbit-api.md §4.1 TargetUpdateStatus (Mgmt shows lower case) */
export const UPDATE_STATUSES = ['unknown', 'registered', 'pending', 'in_sync', 'error'] as const;
export type UpdateStatus = (typeof UPDATE_STATUSES)[number];

export interface AutoConfirm {
  readonly initiator: string | null;
  readonly remark: string | null;
  readonly activatedAt: number;
}

/**
 * A target as persisted. It is also the context of the target machine; `updateStatus` is the
 * machine's state value. The last poll time and address are NOT here: they are written behind in
 * batches into keys the poll hot path does not read (ARCHITECTURE.md, "The poll hot path").
 */
export interface TargetRecord extends Audit {
  readonly id: number;
  readonly controllerId: string;
  readonly name: string;
  readonly description: string | null;
  readonly securityToken: string;
  readonly address: string | null;
  readonly updateStatus: UpdateStatus;
  readonly requestAttributes: boolean;
  readonly targetType: number | null;
  readonly assignedDs: number | null;
  readonly installedDs: number | null;
  readonly installedAt: number | null;
  /** The finished action that installed `installedDs` (the DDI installedBase link). */
  readonly installedAction: number | null;
  /** A verifyInstall action closed with success, waiting for the device to show its set (install-check.ts; absent or null: none). */
  readonly verifyAction?: number | null;
  readonly tags: readonly number[];
  readonly attributes: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly autoConfirm: AutoConfirm | null;
  readonly group: string | null;
}

export const TARGET = 'target';

/** Index entries of a target: unique controller id; lookups by status, DS, tag and type. */
export const targetSchema: KindSchema<TargetRecord, {
  unique: 'controllerId';
  multi: 'updateStatus' | 'assignedDs' | 'installedDs' | 'targetType' | 'tag';
}> = {
  indexes: (t) => ({
    unique: [['controllerId', t.controllerId.toLowerCase()]],
    multi: [
      ['updateStatus', t.updateStatus],
      ...(t.assignedDs === null ? [] : [['assignedDs', String(t.assignedDs)] as const]),
      ...(t.installedDs === null ? [] : [['installedDs', String(t.installedDs)] as const]),
      ...(t.targetType === null ? [] : [['targetType', String(t.targetType)] as const]),
      ...t.tags.map((tag) => ['tag', String(tag)] as const),
    ],
  }),
};
