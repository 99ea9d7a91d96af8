import { ACTION_STATUSES, ACTIVE_STATUSES, INACTIVE_STATUSES, type ACTION, type ActionRecord } from '../../domain/action.js';
import type { DistributionSetRecord } from '../../domain/repository.js';
import { UPDATE_STATUSES, type TargetRecord } from '../../domain/target.js';
import { bool, defineFields, num, oneOf, text, timestamp } from '../../query/index.js';

/**
 * An action with what its FIQL fields may read of its target, distribution set and rollout. The
 * joined parts are loaded only when a query or sort names one of their fields.
 */
export interface ActionView {
  readonly a: ActionRecord;
  readonly target?: TargetRecord | undefined;
  readonly ds?: DistributionSetRecord | undefined;
  readonly dsTypeKey?: string | undefined;
  readonly rolloutName?: string | undefined;
  readonly groupName?: string | undefined;
}

/** `status` of the 0.5-0.9 API: pending while active, finished otherwise (spec 2.10). */
export function pendingOrFinished(a: Pick<ActionRecord, 'active'>): 'pending' | 'finished' {
  return a.active ? 'pending' : 'finished';
}

/** The status keys holding the actions of an `active` value (an action is active exactly when its status is). */
const INACTIVE: readonly string[] = [...INACTIVE_STATUSES];
const statusesOfActive = (key: string): readonly string[] => (key === 'true' ? ACTIVE_STATUSES : key === 'false' ? INACTIVE : []);

/** The fields both generations share (reference §5 ActionFields). */
const sharedFields = {
  id: num((v: ActionView) => v.a.id),
  active: bool((v: ActionView) => v.a.active, { index: { name: 'status', exact: true, keys: statusesOfActive } }),
  detailstatus: oneOf(ACTION_STATUSES, (v: ActionView) => v.a.status, { index: { name: 'status', exact: true } }),
  laststatuscode: num((v: ActionView) => v.a.lastStatusCode),
  weight: num((v: ActionView) => v.a.weight),
  externalref: text((v: ActionView) => v.a.externalRef),
  createdat: timestamp((v: ActionView) => v.a.createdAt),
  createdby: text((v: ActionView) => v.a.createdBy),
  lastmodifiedat: timestamp((v: ActionView) => v.a.lastModifiedAt),
  lastmodifiedby: text((v: ActionView) => v.a.lastModifiedBy),
  'target.controllerid': text((v: ActionView) => v.a.controllerId),
  'target.name': text((v: ActionView) => v.target?.name, { join: 'targets' }),
  'target.updatestatus': oneOf(UPDATE_STATUSES, (v: ActionView) => v.target?.updateStatus, { join: 'targets' }),
  'target.address': text((v: ActionView) => v.target?.address, { join: 'targets' }),
  'distributionset.id': num((v: ActionView) => v.a.ds, { index: { name: 'ds', exact: true } }),
  'distributionset.name': text((v: ActionView) => v.ds?.name, { join: 'sets' }),
  'distributionset.version': text((v: ActionView) => v.ds?.version, { join: 'sets' }),
  'distributionset.type': text((v: ActionView) => v.dsTypeKey, { join: 'sets' }),
  'rollout.id': num((v: ActionView) => v.a.rollout, { index: { name: 'rollout', exact: true } }),
  'rollout.name': text((v: ActionView) => v.rolloutName, { join: 'rollouts' }),
  'rolloutgroup.id': num((v: ActionView) => v.a.rolloutGroup, { index: { name: 'rolloutGroup', exact: true } }),
  'rolloutgroup.name': text((v: ActionView) => v.groupName, { join: 'rollouts' }),
};
const aliases = {
  target: 'target.controllerid',
  distributionset: 'distributionset.id',
  rollout: 'rollout.id',
  rolloutgroup: 'rolloutgroup.id',
};

/**
 * Action query fields of each generation (`compat.managementApi`). 0.9: `status` takes the 0.5-0.9
 * `pending`/`finished` and, leniently, the detailed status (`running`, `error`, ...), so it is
 * two-valued (`status==finished` is every closed action). 1.x: `status` is the detailed status alone,
 * as hawkBit 1.x's ActionFields maps it to the status column (`status==finished` leaves out failed
 * actions; `pending` is no value of it). `detailstatus` is the detailed status in both.
 */
export const actionFieldsOf = {
  '0.9': defineFields<ActionView, typeof ACTION>({
    resource: 'action',
    id: (v) => v.a.id,
    fields: { ...sharedFields, status: oneOf(['pending', 'finished', ...ACTION_STATUSES], (v: ActionView) => [pendingOrFinished(v.a), v.a.status]) },
    aliases,
  }),
  '1.x': defineFields<ActionView, typeof ACTION>({
    resource: 'action',
    id: (v) => v.a.id,
    fields: { ...sharedFields, status: oneOf(ACTION_STATUSES, (v: ActionView) => v.a.status, { index: { name: 'status', exact: true } }) },
    aliases,
  }),
} as const;
