import { ACTION_STATUSES, type ActionRecord } from '../../domain/action.js';
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

/**
 * Action query fields (reference §5 ActionFields). `status` takes both generations' values: the
 * 0.5-0.9 `pending`/`finished` and the newer detailed status (`running`, `canceling`, ...), so it is
 * two-valued; `detailstatus` is the detailed status alone.
 */
export const actionFields = defineFields<ActionView>({
  resource: 'action',
  id: (v) => v.a.id,
  fields: {
    id: num((v) => v.a.id),
    active: bool((v) => v.a.active, { index: { name: 'active', exact: true } }),
    status: oneOf(['pending', 'finished', ...ACTION_STATUSES], (v) => [pendingOrFinished(v.a), v.a.status]),
    detailstatus: oneOf(ACTION_STATUSES, (v) => v.a.status, { index: { name: 'status', exact: true } }),
    laststatuscode: num((v) => v.a.lastStatusCode),
    weight: num((v) => v.a.weight),
    externalref: text((v) => v.a.externalRef),
    createdat: timestamp((v) => v.a.createdAt),
    createdby: text((v) => v.a.createdBy),
    lastmodifiedat: timestamp((v) => v.a.lastModifiedAt),
    lastmodifiedby: text((v) => v.a.lastModifiedBy),
    'target.controllerid': text((v) => v.a.controllerId),
    'target.name': text((v) => v.target?.name, { join: 'targets' }),
    'target.updatestatus': oneOf(UPDATE_STATUSES, (v) => v.target?.updateStatus, { join: 'targets' }),
    'target.address': text((v) => v.target?.address, { join: 'targets' }),
    'distributionset.id': num((v) => v.a.ds, { index: { name: 'ds', exact: true } }),
    'distributionset.name': text((v) => v.ds?.name, { join: 'sets' }),
    'distributionset.version': text((v) => v.ds?.version, { join: 'sets' }),
    'distributionset.type': text((v) => v.dsTypeKey, { join: 'sets' }),
    'rollout.id': num((v) => v.a.rollout, { index: { name: 'rollout', exact: true } }),
    'rollout.name': text((v) => v.rolloutName, { join: 'rollouts' }),
    'rolloutgroup.id': num((v) => v.a.rolloutGroup, { index: { name: 'rolloutGroup', exact: true } }),
    'rolloutgroup.name': text((v) => v.groupName, { join: 'rollouts' }),
  },
  aliases: {
    target: 'target.controllerid',
    distributionset: 'distributionset.id',
    rollout: 'rollout.id',
    rolloutgroup: 'rolloutgroup.id',
  },
});
