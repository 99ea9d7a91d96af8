import type { Audit } from './audit.js';
import type { ActionType } from './action.js';
import type { KindSchema } from './record-schema.js';

/** @see reference §3.3 */
export interface TargetTypeRecord extends Audit {
  readonly id: number;
  readonly key: string | null;
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
  readonly compatibleDsTypes: readonly number[];
  readonly deleted: boolean;
}

/** @see spec 2.8; reference §3.4 */
export interface TargetFilterRecord extends Audit {
  readonly id: number;
  readonly name: string;
  readonly query: string;
  readonly autoAssignDs: number | null;
  readonly autoAssignActionType: Exclude<ActionType, 'timeforced'> | null;
  readonly autoAssignWeight: number | null;
  readonly confirmationRequired: boolean | null;
  /** Who set the auto-assignment: actions it creates are attributed to this user. */
  readonly autoAssignInitiatedBy: string | null;
}

export const TARGET_TYPE = 'targettype';
export const TARGET_FILTER = 'targetfilter';

export const targetTypeSchema: KindSchema<TargetTypeRecord, { unique: 'name' | 'key'; multi: 'dsType' }> = {
  indexes: (t) => ({
    unique: t.deleted ? [] : [['name', t.name.toLowerCase()], ...(t.key ? [['key', t.key.toLowerCase()] as const] : [])],
    multi: t.compatibleDsTypes.map((d) => ['dsType', String(d)] as const),
  }),
};
export const targetFilterSchema: KindSchema<TargetFilterRecord, { unique: 'name'; multi: 'autoAssignDs' | 'autoAssign' }> = {
  indexes: (f) => ({
    unique: [['name', f.name.toLowerCase()]],
    multi: f.autoAssignDs === null ? [] : [['autoAssignDs', String(f.autoAssignDs)], ['autoAssign', 'on']],
  }),
};
