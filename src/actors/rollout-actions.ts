import { ACTION, WEIGHT_IF_ABSENT, rolloutTargetKey, type ActionRecord } from '../domain/action.js';
import type { ActionEvent } from '../domain/action.events.js';
import { assignedEvent, assignmentSettings, startDecision, startReplaces } from '../domain/assignment.js';
import type { Effect } from '../domain/effects.js';
import { verifyFields } from '../domain/install-check.js';
import type { RolloutGroupRecord, RolloutRecord } from '../domain/rollout.js';
import { paced } from '../domain/rollout-release.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { actionsOfGroup, storedActionsOfGroup } from '../store/named-reads.js';
import type { Store, Stored, Tenant } from '../store/port.js';
import { loadRecords } from '../store/reads.js';
import { obsoleteActions } from './assign.js';
import { byNextPoll } from './poll-order.js';
import type { ActorComposer } from './roles.js';
import type { JointEvent } from './runtime.js';

/**
 * The actions of a rollout: created scheduled when their group is scheduled, started when their
 * group starts (reference §4.2 "Rollout group scheduling" / "Rollout group start", §4.4). Both go
 * through the actor runtime, so its observers (the DMF connector) and the rollout counters see them.
 */
export interface RolloutActionDeps {
  readonly store: Pick<Store, 'get' | 'getMany' | 'lookupMany' | 'members' | 'count' | 'nextIds' | 'getPolls' | 'cached'>;
  readonly runtime: ActorComposer;
}

/** Actions per creation commit: large pipelined batches, each one atomic Lua script on Redis. */
const CREATE_BATCH = 1000;

/**
 * Scheduled actions for the targets of a group that have none of this group yet (a pass that was
 * interrupted resumes), created in batches. Targets deleted meanwhile get none. The store holds one
 * action of a rollout per target (the `rolloutTarget` unique index), so a batch that another holder
 * of the lease created some of meanwhile fails whole and is retried without those targets. Returns
 * how many this call created.
 */
export async function scheduleGroupActions(
  deps: RolloutActionDeps, tenant: Tenant, rollout: RolloutRecord, group: RolloutGroupRecord, targetIds: readonly number[],
  now: number, keep: () => Promise<void>,
): Promise<number> {
  const { store, runtime } = deps;
  let todo = targetIds;
  if ((await store.count(tenant, ACTION, 'rolloutGroup', String(group.id))) > 0) {
    const have = await actionsOfGroup(store, tenant, group.id);
    const done = new Set(have.map((a) => a.targetId));
    todo = targetIds.filter((t) => !done.has(t));
  }
  let created = 0;
  for (let i = 0; i < todo.length; i += CREATE_BATCH) {
    // through the client-side cache, which then holds them for the group's start (see startJointly)
    let targets = await loadRecords<TargetRecord>(store.cached, tenant, TARGET, todo.slice(i, i + CREATE_BATCH));
    for (;;) {
      if (targets.length === 0) break;
      const first = await store.nextIds(tenant, ACTION, targets.length);
      const records = targets.map((t, j): ActionRecord => ({
        id: first + j, targetId: t.id, controllerId: t.value.controllerId, ds: rollout.ds, actionType: rollout.actionType,
        forceTime: rollout.actionType === 'timeforced' ? rollout.forceTime : 0, weight: rollout.weight ?? WEIGHT_IF_ABSENT,
        status: 'scheduled', active: false, maintenanceWindow: null, rollout: rollout.id, rolloutGroup: group.id,
        ...verifyFields(rollout),
        lastStatusCode: null, externalRef: null, lastEntry: null, entries: 0,
        createdBy: rollout.createdBy, createdAt: now, lastModifiedBy: rollout.createdBy, lastModifiedAt: now,
      }));
      const result = await runtime.create(tenant, ACTION, records);
      if (result.ok) {
        created += records.length;
        break;
      }
      if (result.index !== 'rolloutTarget') throw new Error(`scheduling actions of rollout group ${group.id} failed: ${result.reason}`);
      // another holder scheduled some of these meanwhile (the store keeps one action of a rollout per target)
      const held = await store.lookupMany(tenant, ACTION, 'rolloutTarget', targets.map((t) => rolloutTargetKey(rollout.id, t.id)));
      targets = targets.filter((_, j) => held[j] === undefined);
    }
    await keep();
  }
  return created;
}

/** Actions started concurrently: node-redis pipelines what is in flight together. */
const CONCURRENCY = 256;

/** Runs `work` over the items with at most 256 in flight. */
export async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/**
 * Starts every scheduled action of a running group (its NEXTGROUP activation): the engine, in its
 * pass or advancing one rollout before `triggerNextGroup` answers. Each start is its own
 * compare-and-set, so two callers starting the same group start each action once. A paced
 * rollout's actions are released by the engine instead, a few at a time (src/scheduler/release.ts).
 */
export async function startGroupActions(
  deps: RolloutActionDeps, tenant: Tenant, rollout: Pick<RolloutRecord, 'createdBy' | 'release'>, group: RolloutGroupRecord,
  cfg: TenantConfigView, now: number,
): Promise<void> {
  if (paced(rollout.release)) return;
  const scheduled = (await storedActionsOfGroup(deps.store, tenant, group.id)).filter((a) => a.value.status === 'scheduled');
  // the devices that poll first get theirs first (poll-order.ts)
  const byId = new Map(scheduled.map((a) => [a.id, a]));
  const ordered = await byNextPoll(deps.store, tenant, scheduled.map((a) => a.value), cfg.durationMs('pollingTime'), now);
  await startRolloutActions(deps, tenant, ordered.map((a) => byId.get(a.id)!), () => group, cfg, rollout.createdBy, now);
}

/** Actions started per joint commit: a few hundred targets' and actions' writes, one bounded script on Redis. */
const START_BATCH = 200;

/**
 * Starts scheduled actions of running groups, each as startRolloutAction decides (the same events and
 * effects), START_BATCH at a time in one joint commit of their targets, the actions and their status
 * entries (`sendJointly`): a group step costs Redis the records' writes, with every index key, counter,
 * journal entry and id reservation moved once per batch instead of once per target. Each record is compared
 * and set at the version read here, so a batch in which anything changed meanwhile (a device registering,
 * an operator's assignment, another holder of the lease starting the same group) commits nothing and
 * its actions are started one by one by startRolloutAction, which reads afresh and retries.
 */
export async function startRolloutActions(
  deps: RolloutActionDeps, tenant: Tenant, actions: readonly Stored<ActionRecord>[],
  groupOf: (a: ActionRecord) => Pick<RolloutGroupRecord, 'confirmationRequired'> | undefined,
  cfg: TenantConfigView, by: string, now: number,
): Promise<void> {
  for (let i = 0; i < actions.length; i += START_BATCH) {
    const batch = actions.slice(i, i + START_BATCH);
    const single = await startJointly(deps, tenant, batch, groupOf, cfg, by, now);
    await inBatches(single, (a) => {
      const group = groupOf(a);
      return group === undefined ? Promise.resolve() : startRolloutAction(deps, tenant, a, group, cfg, by, now);
    });
  }
}

/** One batch of startRolloutActions in one commit; answers the actions left to start one by one. */
async function startJointly(
  deps: RolloutActionDeps, tenant: Tenant, batch: readonly Stored<ActionRecord>[],
  groupOf: (a: ActionRecord) => Pick<RolloutGroupRecord, 'confirmationRequired'> | undefined,
  cfg: TenantConfigView, by: string, now: number,
): Promise<ActionRecord[]> {
  const { store, runtime } = deps;
  const s = assignmentSettings(cfg);
  const start = { by, now };
  // through the client-side cache: the poll of each device keeps its target and active actions there. A stale
  // target fails the commit; its active actions change only with a write of the target, so they are read after it
  const targets = await store.cached.getMany<TargetRecord>(tenant, TARGET, batch.map((a) => a.value.targetId));
  const obsolete = s.multi ? [] : await Promise.all(batch.map((a) => obsoleteActions(store.cached, tenant, a.value.targetId)));
  const events: JointEvent[] = [];
  const effects: Effect[] = [];
  const joined: ActionRecord[] = [];
  const later: ActionRecord[] = [];
  const seen = new Set<number>();
  for (const [j, action] of batch.entries()) {
    const a = action.value;
    const target = targets[j];
    const decision = startDecision(s, a, target?.value, groupOf(a), start);
    if (target === undefined || decision.kind === 'gone') continue;
    // a record is written once per commit: a second action of one target waits for the one-by-one path
    if (seen.has(a.targetId)) {
      later.push(a);
      continue;
    }
    seen.add(a.targetId);
    joined.push(a);
    if (decision.kind === 'skipped') {
      events.push({ kind: ACTION, stored: action, event: decision.event });
      continue;
    }
    events.push({ kind: TARGET, stored: target, event: decision.assigned });
    events.push({ kind: ACTION, stored: action, event: decision.event });
    effects.push(...startReplaces(s, a, obsolete[j] ?? [], start));
  }
  if (events.length === 0) return later;
  const result = await runtime.sendJointly(tenant, events, effects);
  return result.kind === 'committed' ? later : [...joined, ...later];
}

class AlreadyAssigned extends Error {
  constructor(readonly skipped: ActionEvent) {
    super('already assigned');
  }
}
class NotScheduled extends Error {}

export type StartOutcome = 'started' | 'skipped' | 'gone';

/**
 * Starts one scheduled action of a group, in one commit on its target, as startDecision
 * (domain/assignment.ts) decides against the target's version the commit compares and sets: the
 * target gets the set assigned (pending), the action runs (or waits for confirmation), and the
 * target's obsolete active actions are canceled (closed with autoclose). A target that has the set
 * assigned already gets its action finished with "Distribution Set is already assigned. Skipping this action."
 */
export async function startRolloutAction(
  deps: RolloutActionDeps, tenant: Tenant, action: ActionRecord, group: Pick<RolloutGroupRecord, 'confirmationRequired'>,
  cfg: TenantConfigView, by: string, now: number, retry = false,
): Promise<StartOutcome> {
  const { store, runtime } = deps;
  const s = assignmentSettings(cfg);
  const start = { by, now, retry };
  let effects: readonly Effect[] = [];
  try {
    const result = await runtime.send(tenant, TARGET, action.targetId, assignedEvent(action, start), {
      also: async (_next, current) => {
        const stored = await store.get<ActionRecord>(tenant, ACTION, action.id);
        if (stored === undefined) throw new NotScheduled();
        const decision = startDecision(s, stored.value, current.value, group, start);
        if (decision.kind === 'gone') throw new NotScheduled();
        if (decision.kind === 'skipped') throw new AlreadyAssigned(decision.event);
        const obsolete = s.multi ? [] : await obsoleteActions(store, tenant, action.targetId);
        const step = await runtime.transition(tenant, ACTION, stored, decision.event);
        if (step === undefined) throw new NotScheduled();
        effects = [...step.effects, ...startReplaces(s, action, obsolete, start)];
        return [...step.writes];
      },
      effects: () => effects,
    });
    return result.kind === 'committed' ? 'started' : 'gone';
  } catch (err) {
    if (err instanceof NotScheduled) return 'gone';
    if (!(err instanceof AlreadyAssigned)) throw err;
    await runtime.send(tenant, ACTION, action.id, err.skipped);
    return 'skipped';
  }
}
