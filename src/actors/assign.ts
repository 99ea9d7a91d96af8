import { ACTION, ACTION_STATUS, SERVER_MESSAGE_PREFIX, type ActionRecord, type ActionStatusRecord, type ActionType, type MaintenanceWindow } from '../domain/action.js';
import { assignmentSettings, replacedEffects } from '../domain/assignment.js';
import { AppError, concurrent, notFound } from '../domain/errors.js';
import { DS, type DistributionSetRecord } from '../domain/repository.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { Reads, Store, Tenant, Write } from '../store/port.js';
import { activeActionsOf } from '../store/named-reads.js';
import { loadMap } from '../store/reads.js';
import type { ActorEditor } from './roles.js';
import type { SendResult } from './runtime.js';

/** One distribution set for one target, as the Management API, auto-assignment or a rollout asks. */
export interface AssignmentRequest {
  readonly targetId: number;
  readonly ds: number;
  readonly actionType: ActionType;
  readonly forceTime: number;
  readonly weight: number | null;
  /** null: the tenant's confirmation flow decides. */
  readonly confirmationRequired: boolean | null;
  readonly maintenanceWindow: MaintenanceWindow | null;
  readonly by: string;
  /** Server message of the first status entry; defaults to "Assignment initiated by user '<by>'". */
  readonly message?: string;
  readonly rollout?: number | null;
  readonly rolloutGroup?: number | null;
  /** A rollback action of an aborted rollout (ActionRecord.rollback). */
  readonly rollback?: boolean;
}

export type AssignmentOutcome =
  | { readonly kind: 'assigned'; readonly actionId: number; readonly effectIds: readonly string[] }
  | { readonly kind: 'alreadyAssigned' };

export interface AssignDeps {
  readonly store: Pick<Store, 'count' | 'members' | 'getMany' | 'nextIds'>;
  readonly runtime: ActorEditor;
  readonly maxActionsPerTarget: number;
}

class AlreadyAssigned extends Error {}

/**
 * Online assignment (reference §4.2, §4.4): one commit on the target actor that moves it to pending,
 * creates the action and its first status entry, and carries the effects that cancel (or, with
 * autoclose, close) the target's obsolete active actions. Without multi-assignment a target that has
 * the DS assigned already gets no new action.
 */
export async function assignOnline(
  deps: AssignDeps, tenant: Tenant, req: AssignmentRequest, cfg: TenantConfigView, now: number,
): Promise<AssignmentOutcome> {
  const settings = assignmentSettings(cfg);
  const { multi, flow } = settings;
  let actionId = 0;
  let obsolete: ActionRecord[] = [];
  // Everything is decided in `also`, against the target version the commit compares and sets:
  // every new action of a target commits on the target, so a concurrent one makes the runtime reload
  // and decide again. The runtime asks for `effects` after `also` has run.
  const event = { type: 'mgmt.assigned', ds: req.ds, at: now, by: req.by } as const;
  return outcomeOf(req.targetId, () => actionId, () => deps.runtime.send(tenant, TARGET, req.targetId, event, {
    also: async (_next, current) => {
      const target = current.value;
      if (!multi && target.assignedDs === req.ds) throw new AlreadyAssigned();
      await checkActionQuota(deps, tenant, target.id);
      obsolete = multi ? [] : await obsoleteActions(deps.store, tenant, target.id);
      actionId = await deps.store.nextIds(tenant, ACTION, 1);
      const waits = flow && req.confirmationRequired !== false && target.autoConfirm === null;
      const message = req.message ?? `Assignment initiated by user '${req.by}'`;
      const messages = [SERVER_MESSAGE_PREFIX + message];
      if (flow && target.autoConfirm !== null && req.confirmationRequired !== false) {
        messages.push(SERVER_MESSAGE_PREFIX + `Assignment automatically confirmed by initiator '${target.autoConfirm.initiator ?? 'unknown'}'.`);
        if (target.autoConfirm.remark) messages.push(target.autoConfirm.remark);
      }
      const status = waits ? 'wait_for_confirmation' as const : 'running' as const;
      return newActionWrites(deps, tenant, newAction(actionId, target, req, status, now), status, messages, now);
    },
    effects: () => replacedEffects(settings, obsolete, req.by, now),
  }));
}

/**
 * Offline assignment: records a DS the device already runs. A finished, inactive action; the target
 * has it assigned and installed, in sync. Targets with an update pending are skipped.
 */
export async function assignOffline(deps: AssignDeps, tenant: Tenant, req: AssignmentRequest, now: number): Promise<AssignmentOutcome> {
  const actionId = await deps.store.nextIds(tenant, ACTION, 1);
  return outcomeOf(req.targetId, () => actionId, () =>
    deps.runtime.send(tenant, TARGET, req.targetId, { type: 'mgmt.assignedOffline', ds: req.ds, action: actionId, at: now, by: req.by }, {
      also: async (_next, current) => {
        const target = current.value;
        if (target.updateStatus === 'pending' || target.assignedDs === req.ds) throw new AlreadyAssigned();
        await checkActionQuota(deps, tenant, target.id);
        const message = req.message ?? `Offline assignment initiated by user '${req.by}'`;
        const action = newAction(actionId, target, req, 'finished', now);
        return newActionWrites(deps, tenant, action, 'finished', [SERVER_MESSAGE_PREFIX + message], now);
      },
    }));
}

/**
 * What an assignment's commit on its target came to: assigned (the action id as `also` chose it),
 * already assigned (its `also` refused), or the target's 404 / concurrent-modification error.
 */
async function outcomeOf(
  targetId: number, actionId: () => number, commit: () => Promise<SendResult<TargetRecord>>,
): Promise<AssignmentOutcome> {
  try {
    const result = await commit();
    if (result.kind === 'missing') throw notFound('Target', targetId);
    if (result.kind !== 'committed') throw concurrent('target', targetId);
    return { kind: 'assigned', actionId: actionId(), effectIds: result.effectIds };
  } catch (err) {
    if (err instanceof AlreadyAssigned) return { kind: 'alreadyAssigned' };
    throw err;
  }
}

async function checkActionQuota(deps: AssignDeps, tenant: Tenant, targetId: number): Promise<void> {
  const count = await deps.store.count(tenant, ACTION, 'target', String(targetId));
  if (count >= deps.maxActionsPerTarget) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target ${targetId} has ${count} actions; at most ${deps.maxActionsPerTarget} are allowed.`);
  }
}

/** Active actions a new assignment replaces: all but those of a required migration step and those already canceling. */
export async function obsoleteActions(store: Pick<Reads, 'members' | 'getMany'>, tenant: Tenant, targetId: number): Promise<ActionRecord[]> {
  const actions = (await activeActionsOf(store, tenant, targetId)).map((a) => a.value);
  const sets = await loadMap<DistributionSetRecord>(store, tenant, DS, actions.map((a) => a.ds));
  const migration = new Set([...sets.values()].filter((d) => d.requiredMigrationStep).map((d) => d.id));
  return actions.filter((a) => a.active && a.status !== 'canceling' && !migration.has(a.ds));
}

function newAction(id: number, target: TargetRecord, req: AssignmentRequest, status: ActionRecord['status'], now: number): ActionRecord {
  return {
    id, targetId: target.id, controllerId: target.controllerId, ds: req.ds, actionType: req.actionType,
    forceTime: req.actionType === 'timeforced' ? req.forceTime : 0, weight: req.weight, status,
    active: status !== 'finished', maintenanceWindow: req.maintenanceWindow,
    rollout: req.rollout ?? null, rolloutGroup: req.rolloutGroup ?? null, lastStatusCode: null, externalRef: null,
    lastEntry: status, entries: 1, ...(req.rollback === true ? { rollback: true } : {}),
    createdBy: req.by, createdAt: now, lastModifiedBy: req.by, lastModifiedAt: now,
  };
}

async function newActionWrites(
  deps: AssignDeps, tenant: Tenant, action: ActionRecord, type: ActionRecord['status'], messages: string[], now: number,
): Promise<Write[]> {
  const entryId = await deps.store.nextIds(tenant, ACTION_STATUS, 1);
  const entry: ActionStatusRecord = { id: entryId, actionId: action.id, type, messages, reportedAt: now, timestamp: now, code: null };
  return [
    deps.runtime.creation(ACTION, action),
    { kind: ACTION_STATUS, id: entryId, expect: 0, fresh: true, after: entry },
  ];
}
