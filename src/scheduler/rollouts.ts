import type { ActorChange } from '../actors/change.js';
import { inBatches, scheduleGroupActions, startGroupActions } from '../actors/rollout-actions.js';
import type { ActorComposer } from '../actors/roles.js';
import type { ActionRecord } from '../domain/action.js';
import { ACTION } from '../domain/action.js';
import { AppError } from '../domain/errors.js';
import type { MultiIndexOf } from '../domain/kinds.js';
import type { Quotas } from '../domain/quotas.js';
import {
  ENGINE_STATUSES, REGROUPABLE, ROLLOUT, ROLLOUT_GROUP, ROLLOUT_MEMBERS,
  type RolloutGroupRecord, type RolloutMembersRecord, type RolloutRecord,
} from '../domain/rollout.js';
import { evaluateGroup, groupCounterKey, rolloutCounterKey } from '../domain/rollout-counts.js';
import { dynamicSize } from '../domain/rollout-dynamic.js';
import { evaluateAbort } from '../domain/rollout-abort.js';
import { rolloutTimeoutKey } from '../domain/rollout-safety.js';
import type { RolloutGroupEvent } from '../domain/rollout-group.machine.js';
import type { RolloutEvent } from '../domain/rollout.machine.js';
import { actionsOfGroup, actionsOfRollout, groupTargets } from '../store/named-reads.js';
import type { Store, Tenant, Write } from '../store/port.js';
import { SCAN_ALL, holdsNone, loadRecords } from '../store/reads.js';
import { growDynamicRollout } from './dynamic-groups.js';
import { ACTION_CHECK_MS, closeTimedOut } from './action-timeouts.js';
import { retryFailed } from './action-retries.js';
import { rollBack, rollbackTargets } from './rollback.js';
import { regroup } from './regroup.js';
import { releaseDue } from './release.js';
import { wakesEngine } from './rollout-wake.js';
import { ended, soakEnd, soaking } from '../domain/rollout-release.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';

/** The engine's memory of one rollout in progress. */
interface RolloutMemory {
  /** When its actions were last read for timeouts and retries (or an abort's running ones), ms of the pass: at most every 5 s. */
  actionsChecked: number | undefined;
  /** The error count of each running group (with `retry`) when its actions were last read. */
  readonly errorsSeen: Map<number, number>;
  /** An aborted rollout's actions left to finish (onAbort finishRunning), as last read: only they are read again. */
  running: readonly number[] | undefined;
}

/** Who the engine's own steps are recorded as (a pause by an error action, cancellations on stop). */
const ENGINE = 'system';

/** The rollout index entries the engine works on: the statuses, then aborted rollouts whose actions wait (rollout-safety.ts). */
const WORK: readonly (readonly [MultiIndexOf<typeof ROLLOUT>, string])[] = [...ENGINE_STATUSES.map((s) => ['status', s] as const), ['abortPending', '1']];

export interface RolloutEngineDeps {
  readonly store: Store;
  readonly runtime: ActorComposer;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
  readonly log: { warn(obj: object, msg: string): void };
  /** Bounds a dynamic rollout's groups; a rollback action counts against its target's actions. */
  readonly quotas: Pick<Quotas, 'maxRolloutGroupsPerRollout' | 'maxActionsPerTarget'>;
}

/**
 * The rollout engine (reference §4.6, §4.7): one pass over a tenant's rollouts in the statuses it
 * works on, run under the tenant's `rollouts` lease (scheduler/index.ts), so with several instances
 * each step happens once; `keep` renews the lease between the batches of a long step and throws
 * when it was lost. Every status change is an event to the rollout's or group's machine through the
 * runtime (compare-and-set), so a step that another instance did already is ignored.
 * - creating: the groups were filled by the create request (the members records); groups → ready,
 *   rollout → ready (or waiting for approval);
 * - ready: started when `startAt` has come;
 * - starting: each group's actions created scheduled (group → scheduled); the first group starts
 *   right after its own actions exist; then rollout → running;
 * - running: each running group is evaluated from its counters (error → group error, rollout
 *   paused; success → its success action, once; complete → finished, in the same pass when its
 *   success action PAUSE pauses the rollout); no group running: the next
 *   scheduled one starts, or with none left the rollout is finished; a dynamic rollout first takes one
 *   growth step a pass (dynamic-groups.ts), and its last dynamic group never completes;
 * - stopping / deleting: scheduled actions removed, open groups finished, active actions canceled
 *   (force-quit on delete); a rollout that never started an action is removed entirely;
 * - running with `abort` (rollout-safety.ts): before its groups, the rollout's counters against the
 *   criteria; one that holds stops it at once (stopReason, abortPending), and the same pass (or the
 *   next, after a restart) finds it under the `abortPending` index: scheduled actions removed, open
 *   groups finished, running actions canceled (onAbort cancel), the rollback set assigned (rollback.ts).
 * A group therefore starts at the first pass after its predecessor meets its success condition.
 */
export class RolloutEngine {
  readonly #deps: RolloutEngineDeps;
  /**
   * What the engine remembers of each rollout it works on, per tenant: kept only while the rollout is in a
   * status the engine works on (a pass forgets the others: finished, stopped, deleted, paused), so memory
   * stays bounded by the rollouts in progress however many come and go.
   */
  readonly #memory = new Map<Tenant, Map<number, RolloutMemory>>();
  /** Brings the next pass forward (the scheduler's runner, while it runs the passes). */
  #wake: (() => void) | undefined;

  constructor(deps: RolloutEngineDeps) {
    this.#deps = deps;
  }

  /** Who brings the next pass forward when a commit gives the engine work (the scheduler while it runs; undefined: nobody). */
  whenWorkArrives(wake: (() => void) | undefined): void {
    this.#wake = wake;
  }

  /**
   * The runtime's commit listener (src/app/services.ts): a commit that may give the engine work (rollout-wake.ts:
   * an action of a rollout closed, a rollout created, started, stopped or deleted) wakes the next pass instead
   * of leaving it to the interval, so a group that met its condition is followed by the next within a
   * few milliseconds. A commit made on another loop or instance is seen at the next pass: it changed an index the
   * idle look reads through the cached view, which Redis invalidates here.
   */
  noticed(changes: readonly ActorChange[]): void {
    if (this.#wake !== undefined && wakesEngine(changes)) this.#wake();
  }

  /**
   * True while the tenant has no rollout in a status the engine works on (nor one whose abort waits): the
   * indexes of WORK read through the store's cached view, which costs no command while they stay as they
   * are (on Redis a write to one, by any instance, invalidates it here). A rollout created, started,
   * resumed, stopped or deleted anywhere enters one of them, so the next pass (this process's commits wake
   * it at once, see noticed) finds it; a tenant with nothing to do costs no Redis command a pass.
   */
  async idle(tenant: Tenant): Promise<boolean> {
    for (const work of WORK) if (!(await holdsNone(this.#deps.store.cached, tenant, ROLLOUT, work))) return false;
    return true;
  }

  /** One pass over a tenant's rollouts; returns the number of steps taken. */
  async run(tenant: Tenant, now: number, keep: () => Promise<void> = async () => {}): Promise<number> {
    const { store } = this.#deps;
    let steps = 0;
    const worked = new Set<number>();
    for (const [index, key] of WORK) {
      const { ids } = await store.members(tenant, ROLLOUT, index, key, SCAN_ALL);
      for (const id of ids) {
        worked.add(id);
        try {
          steps += await this.#step(tenant, id, now, keep);
        } catch (err) {
          // one rollout's refusal (its set became unusable, a quota) must not hold up the others
          if (!(err instanceof AppError)) throw err;
          this.#deps.log.warn({ tenant, rollout: id, err: err.message }, 'rollout step refused');
        }
      }
    }
    this.#forget(tenant, worked);
    return steps;
  }

  /** How many rollouts of the tenant (or of all tenants) the engine holds memory for (tests: it stays bounded). */
  remembered(tenant?: Tenant): number {
    if (tenant !== undefined) return this.#memory.get(tenant)?.size ?? 0;
    let n = 0;
    for (const m of this.#memory.values()) n += m.size;
    return n;
  }

  #remember(tenant: Tenant, rollout: number): RolloutMemory {
    let mine = this.#memory.get(tenant);
    if (mine === undefined) this.#memory.set(tenant, (mine = new Map<number, RolloutMemory>()));
    let m = mine.get(rollout);
    if (m === undefined) mine.set(rollout, (m = { actionsChecked: undefined, errorsSeen: new Map(), running: undefined }));
    return m;
  }

  /** Drops the memory of the tenant's rollouts this pass did not work on (ended, deleted, paused). */
  #forget(tenant: Tenant, worked: ReadonlySet<number>): void {
    const mine = this.#memory.get(tenant);
    if (mine === undefined) return;
    for (const id of mine.keys()) if (!worked.has(id)) mine.delete(id);
    if (mine.size === 0) this.#memory.delete(tenant);
  }

  /**
   * Advances one running rollout now, outside the pass: the scheduled actions of its running groups
   * start (what the pass would do for them). A Management operation that starts a group
   * (triggerNextGroup) awaits it, so it answers once the group's actions run, as hawkBit's NEXTGROUP
   * activation does in one step. Each start is its own compare-and-set, so this is safe beside a pass.
   */
  async advance(tenant: Tenant, id: number, now: number): Promise<void> {
    const rollout = (await this.#deps.store.get<RolloutRecord>(tenant, ROLLOUT, id))?.value;
    if (rollout?.status !== 'running') return;
    const groups = await this.#groups(tenant, rollout);
    const counts = await this.#deps.store.counters(tenant, groups.map((g) => groupCounterKey(g.id)));
    for (const [i, g] of groups.entries()) {
      if (g.status === 'running' && (counts[i]?.['scheduled'] ?? 0) > 0) await this.#activate(tenant, rollout, g, now);
    }
  }

  /** Divides a rollout's targets over its groups again after a PUT changed its groupOrder (regroup.ts). */
  async regroup(tenant: Tenant, id: number, now: number): Promise<void> {
    await regroup(this.#deps, tenant, id, now);
  }

  async #step(tenant: Tenant, id: number, now: number, keep: () => Promise<void>): Promise<number> {
    const stored = await this.#deps.store.get<RolloutRecord>(tenant, ROLLOUT, id);
    if (stored === undefined) return 0;
    const rollout = stored.value;
    // a groupOrder changed by a PUT whose regroup a stop cut short: before the groups are filled or their actions made
    if (rollout.regroup === true && REGROUPABLE.includes(rollout.status)) {
      await this.regroup(tenant, id, now);
    }
    if (ended(rollout.release, now) && (rollout.status === 'ready' || rollout.status === 'starting' || rollout.status === 'running')) {
      return (await this.#rollout(tenant, rollout.id, { type: 'engine.ended', at: now })) ? 1 : 0;
    }
    switch (rollout.status) {
      case 'creating':
        return this.#fill(tenant, rollout, now);
      case 'ready':
        if (rollout.startAt === null || rollout.startAt > now) return 0;
        return (await this.#rollout(tenant, rollout.id, { type: 'mgmt.start', at: now, by: rollout.createdBy })) ? 1 : 0;
      case 'starting':
        return this.#start(tenant, rollout, now, keep);
      case 'running':
        return this.#run(tenant, rollout, now, keep);
      case 'stopping':
        return this.#stop(tenant, rollout, now, keep);
      case 'deleting':
        return this.#delete(tenant, rollout, now, keep);
      case 'stopped':
        return rollout.abortPending === true ? this.#afterAbort(tenant, rollout, now, keep) : 0;
      default:
        return 0;
    }
  }

  async #fill(tenant: Tenant, rollout: RolloutRecord, now: number): Promise<number> {
    for (const g of await this.#groups(tenant, rollout)) {
      if (g.status === 'creating') await this.#group(tenant, g.id, { type: 'engine.filled', at: now, totalTargets: g.totalTargets });
    }
    return (await this.#rollout(tenant, rollout.id, { type: 'engine.filled', at: now, totalTargets: rollout.totalTargets })) ? 1 : 0;
  }

  async #start(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<number> {
    const groups = await this.#groups(tenant, rollout);
    for (const g of groups) {
      if (g.status !== 'ready') continue;
      await scheduleGroupActions(this.#deps, tenant, rollout, g, await groupTargets(this.#deps.store, tenant, g.id), now, keep);
      await this.#group(tenant, g.id, { type: 'engine.scheduled', at: now });
      // the first group starts as soon as its own actions exist; the others are scheduled after it
      if (g.parent === null) await this.#startGroup(tenant, rollout, g.id, now);
    }
    return (await this.#rollout(tenant, rollout.id, { type: 'engine.started', at: now })) ? 1 : 0;
  }

  /** Group → running, then its scheduled actions started. */
  async #startGroup(tenant: Tenant, rollout: RolloutRecord, group: number, now: number): Promise<void> {
    const started = await this.#deps.runtime.send(tenant, ROLLOUT_GROUP, group, { type: 'engine.started', at: now });
    if (started.kind === 'committed') await this.#activate(tenant, rollout, started.record, now);
  }

  /** Starts the scheduled actions of a running group. */
  async #activate(tenant: Tenant, rollout: RolloutRecord, group: RolloutGroupRecord, now: number): Promise<void> {
    await startGroupActions(this.#deps, tenant, rollout, group, await this.#deps.tenantConfig.view(tenant), now);
  }

  async #run(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<number> {
    const { store } = this.#deps;
    let groups = await this.#groups(tenant, rollout);
    // a dynamic rollout takes one growth step a pass, then is evaluated on the next, as hawkBit's executor does
    const maxGroups = this.#deps.quotas.maxRolloutGroupsPerRollout;
    if (await growDynamicRollout(this.#deps, tenant, rollout, groups, { now, maxGroups, keep })) return 1;
    const downloadOnly = rollout.actionType === 'downloadonly';
    let steps = await this.#actionLimits(tenant, rollout, groups, now);
    steps += await this.#newErrors(tenant, rollout, groups, now);
    if (rollout.abort !== undefined) {
      const [whole, timedOut] = await store.counters(tenant, [rolloutCounterKey(rollout.id), rolloutTimeoutKey(rollout.id)]);
      const reason = evaluateAbort(rollout.abort, { ...whole, ...timedOut }, downloadOnly, now);
      // its actions are handled under the abortPending index, later in this pass
      if (reason !== undefined) return steps + ((await this.#rollout(tenant, rollout.id, { type: 'engine.aborted', at: now, reason })) ? 1 : 0);
    }
    const counts = await store.counters(tenant, groups.map((g) => groupCounterKey(g.id)));
    for (const [i, g] of groups.entries()) {
      if (g.status !== 'running') continue;
      const c = counts[i] ?? {};
      // started by another instance's triggerNextGroup, or a start cut short: its actions still wait
      if ((c['scheduled'] ?? 0) > 0) await this.#activate(tenant, rollout, g, now);
      // the last group of a dynamic rollout is measured against its size and never complete (it waits for targets)
      const open = g.dynamic === true && i === groups.length - 1;
      const measured = evaluateGroup(c, open ? dynamicSize(g) : g.totalTargets, g, downloadOnly);
      const ev = open ? { ...measured, complete: false } : measured;
      if (ev.error) {
        const reason = `${c['error'] ?? 0} of ${g.totalTargets} actions in error, over the error threshold of ${g.errorCondition.expression}%`;
        await this.#group(tenant, g.id, { type: 'engine.failed', at: now, reason });
        await this.#rollout(tenant, rollout.id, { type: 'mgmt.pause', at: now, by: ENGINE, reason: `group ${g.id} '${g.name}': ${reason}` });
        return steps + 1;
      }
      if (ev.success || ev.complete) {
        const children = groups.filter((x) => x.parent === g.id && x.status === 'scheduled');
        // NEXTGROUP starts the children; after a PAUSE (once the rollout is resumed) they start too
        if (g.successAction.action === 'NEXTGROUP' || g.successHandled) {
          // with a soak the children wait until it is over, and start then only if the group still meets its condition
          const soakUntil = g.soakUntil ?? soakEnd(rollout.release, now);
          if (children.length > 0 && soakUntil !== undefined && g.soakUntil === undefined) {
            if (await this.#group(tenant, g.id, { type: 'engine.soaking', at: now, until: soakUntil })) steps++;
          }
          const due = soakUntil === undefined || now >= soakUntil;
          if (due) for (const child of children) await this.#startGroup(tenant, rollout, child.id, now);
        } else if (children.length > 0) {
          await this.#group(tenant, g.id, { type: 'engine.succeeded', at: now });
          const reason = `group ${g.id} '${g.name}' met its success condition; its success action is PAUSE`;
          await this.#rollout(tenant, rollout.id, { type: 'mgmt.pause', at: now, by: ENGINE, reason });
          // the pass that pauses also finishes a complete group, as hawkBit's executor does (a paused rollout gets no pass)
          if (ev.complete) await this.#group(tenant, g.id, { type: 'engine.finished', at: now });
          return steps + 1;
        }
        if (await this.#group(tenant, g.id, { type: 'engine.succeeded', at: now })) steps++;
      }
      if (ev.complete && (await this.#group(tenant, g.id, { type: 'engine.finished', at: now }))) steps++;
    }
    groups = await this.#groups(tenant, rollout);
    if ((await releaseDue(this.#deps, tenant, rollout, groups, now)) > 0) steps++;
    if (groups.some((g) => g.status === 'running')) return steps;
    const next = groups.find((g) => g.status === 'scheduled');
    // a group that completed while soaking holds its successor back until the soak is over
    if (next !== undefined && groups.some((g) => g.id === next.parent && soaking(g, now))) return steps;
    if (next !== undefined) {
      await this.#startGroup(tenant, rollout, next.id, now);
      return steps + 1;
    }
    return steps + ((await this.#rollout(tenant, rollout.id, { type: 'engine.finished', at: now })) ? 1 : 0);
  }

  async #stop(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<number> {
    const open = await this.#wrapUp(tenant, rollout, now, keep);
    // stopped by its endAt with endBehaviour stop: the running actions are left to finish
    const finishRunning = rollout.endedAt !== undefined && rollout.release?.endBehaviour !== 'cancel';
    if (!finishRunning) {
      await inBatches(open.filter((a) => a.status !== 'canceling'), (a) =>
        this.#deps.runtime.send(tenant, ACTION, a.id, { type: 'mgmt.cancel', at: now, by: ENGINE, reason: 'manual' }));
    }
    return (await this.#rollout(tenant, rollout.id, { type: 'engine.stopped', at: now })) ? 1 : 0;
  }

  /**
   * The rollout's actionTimeout and retry over its running groups' actions (action-timeouts.ts,
   * action-retries.ts), at most every 5 s a rollout (the clock of the pass decides).
   */
  async #actionLimits(tenant: Tenant, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[], now: number): Promise<number> {
    if (rollout.actionTimeout === undefined && rollout.retry === undefined) return 0;
    const memory = this.#remember(tenant, rollout.id);
    const last = memory.actionsChecked;
    if (last !== undefined && now >= last && now - last < ACTION_CHECK_MS) return 0;
    memory.actionsChecked = now;
    const cfg = await this.#deps.tenantConfig.view(tenant);
    let steps = 0;
    for (const g of groups) {
      if (g.status !== 'running') continue;
      let actions = await actionsOfGroup(this.#deps.store, tenant, g.id);
      const closed = await closeTimedOut(this.#deps.runtime, tenant, rollout, actions, now);
      // the timed-out ones wait for their retry at once (before their group could be complete)
      if (closed > 0) actions = await actionsOfGroup(this.#deps.store, tenant, g.id);
      steps += closed + await retryFailed(this.#deps, tenant, rollout, g, actions, cfg, now);
    }
    return steps;
  }

  /**
   * With `retry`, a running group whose error count changed has its failed actions read at once, so a
   * failure with retries left waits for its retry (`retrying`) before the group, the error condition or
   * the abort criteria count it as an error (action-retries.ts).
   */
  async #newErrors(tenant: Tenant, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[], now: number): Promise<number> {
    if (rollout.retry === undefined) return 0;
    const running = groups.filter((g) => g.status === 'running');
    const counts = await this.#deps.store.counters(tenant, running.map((g) => groupCounterKey(g.id)));
    const seen = this.#remember(tenant, rollout.id).errorsSeen;
    let steps = 0;
    for (const [i, g] of running.entries()) {
      const errors = counts[i]?.['error'] ?? 0;
      if (errors === 0 || seen.get(g.id) === errors) continue;
      seen.set(g.id, errors);
      const actions = await actionsOfGroup(this.#deps.store, tenant, g.id);
      steps += await retryFailed(this.#deps, tenant, rollout, g, actions, await this.#deps.tenantConfig.view(tenant), now);
    }
    return steps;
  }

  /**
   * An aborted rollout: its scheduled actions removed, groups finished, running ones canceled (or left), the rollback assigned.
   * With finishRunning and a rollback, the rollout stays pending until its running actions have ended (looked at every
   * ACTION_CHECK_MS, their actionTimeout applied meanwhile); the rollback then goes to every target whose action failed.
   * Only the first look reads all of the rollout's actions: nothing starts once it is stopped, so later looks read the
   * records of the actions that were running then, as long as some still run (after a restart, the first look again).
   */
  async #afterAbort(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<number> {
    const { abort, stopReason } = rollout;
    const memory = this.#remember(tenant, rollout.id);
    const waited = memory.actionsChecked;
    if (waited !== undefined && now >= waited && now - waited < ACTION_CHECK_MS) return 0;
    const running = (a: ActionRecord): boolean => a.active && a.rollback !== true && a.status !== 'scheduled';
    const active = memory.running === undefined
      ? (await this.#wrapUp(tenant, rollout, now, keep)).filter(running)
      : (await loadRecords<ActionRecord>(this.#deps.store, tenant, ACTION, memory.running)).map((a) => a.value).filter(running);
    const cancel = abort?.onAbort !== 'finishRunning';
    if (cancel) {
      const open = active.filter((a) => a.status !== 'canceling');
      await inBatches(open, (a) => this.#deps.runtime.send(tenant, ACTION, a.id, { type: 'mgmt.cancel', at: now, by: ENGINE, reason: 'abort' }));
    } else if (abort?.rollbackTo != null && active.length > 0) {
      // the running actions finish first: the rollback waits for their outcome (a timeout closes a silent one)
      memory.actionsChecked = now;
      memory.running = active.map((a) => a.id);
      return closeTimedOut(this.#deps.runtime, tenant, rollout, active, now);
    }
    memory.actionsChecked = undefined;
    memory.running = undefined;
    if (abort?.rollbackTo != null && stopReason !== undefined) {
      await keep();
      const targets = rollbackTargets(await actionsOfRollout(this.#deps.store, tenant, rollout.id), stopReason, cancel);
      const deps = { ...this.#deps, maxActionsPerTarget: this.#deps.quotas.maxActionsPerTarget };
      await rollBack(deps, tenant, rollout, abort.rollbackTo, targets, await this.#deps.tenantConfig.view(tenant), now);
    }
    return (await this.#rollout(tenant, rollout.id, { type: 'engine.abortHandled', at: now })) ? 1 : 0;
  }

  async #delete(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<number> {
    const { store, runtime } = this.#deps;
    const all = await actionsOfRollout(this.#deps.store, tenant, rollout.id);
    if (all.every((a) => a.status === 'scheduled')) {
      // nothing ever ran: the rollout goes entirely (hawkBit's hard delete)
      await inBatches(all, (a) => runtime.remove(tenant, ACTION, a.id, { when: (x) => x.status === 'scheduled' }));
      const groups = await this.#groups(tenant, rollout);
      for (const g of groups) await runtime.remove(tenant, ROLLOUT_GROUP, g.id);
      const members = await store.members(tenant, ROLLOUT_MEMBERS, 'rollout', String(rollout.id), SCAN_ALL);
      const records = await loadRecords<RolloutMembersRecord>(store, tenant, ROLLOUT_MEMBERS, members.ids);
      const writes: Write[] = records.map((m) => ({ kind: ROLLOUT_MEMBERS, id: m.id, expect: m.version, before: m.value, after: null }));
      if (writes.length > 0) await store.commit(tenant, { writes });
      const keys = [rolloutCounterKey(rollout.id), rolloutTimeoutKey(rollout.id), ...groups.map((g) => groupCounterKey(g.id))];
      await store.dropCounters(tenant, keys);
      await runtime.remove(tenant, ROLLOUT, rollout.id, { when: (r) => r.status === 'deleting' });
      return 1;
    }
    const open = await this.#wrapUp(tenant, rollout, now, keep);
    await inBatches(open, async (a) => {
      if (a.status !== 'canceling') await runtime.send(tenant, ACTION, a.id, { type: 'mgmt.cancel', at: now, by: ENGINE, reason: 'manual' });
      await runtime.send(tenant, ACTION, a.id, { type: 'mgmt.forceQuit', at: now, by: ENGINE });
    });
    return (await this.#rollout(tenant, rollout.id, { type: 'engine.deleted', at: now })) ? 1 : 0;
  }

  /** Stop and delete: scheduled actions removed, open groups finished; answers the active actions. */
  async #wrapUp(tenant: Tenant, rollout: RolloutRecord, now: number, keep: () => Promise<void>): Promise<ActionRecord[]> {
    const { runtime } = this.#deps;
    const all = await actionsOfRollout(this.#deps.store, tenant, rollout.id);
    await inBatches(all.filter((a) => a.status === 'scheduled'), (a) =>
      runtime.remove(tenant, ACTION, a.id, { when: (x) => x.status === 'scheduled' }));
    await keep();
    for (const g of await this.#groups(tenant, rollout)) {
      if (g.status !== 'finished' && g.status !== 'error') await this.#group(tenant, g.id, { type: 'engine.finished', at: now });
    }
    return all.filter((a) => a.active);
  }

  async #groups(tenant: Tenant, rollout: RolloutRecord): Promise<RolloutGroupRecord[]> {
    return (await loadRecords<RolloutGroupRecord>(this.#deps.store, tenant, ROLLOUT_GROUP, rollout.groups)).map((g) => g.value);
  }

  async #rollout(tenant: Tenant, id: number, event: RolloutEvent): Promise<boolean> {
    return (await this.#deps.runtime.send(tenant, ROLLOUT, id, event)).kind === 'committed';
  }

  async #group(tenant: Tenant, id: number, event: RolloutGroupEvent): Promise<boolean> {
    return (await this.#deps.runtime.send(tenant, ROLLOUT_GROUP, id, event)).kind === 'committed';
  }
}
