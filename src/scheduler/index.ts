import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppModule } from '../module.js';
import { cleanupActions } from './action-cleanup.js';
import type { SchedulerDeps } from './deps.js';
import { AutoAssigner } from './auto-assign.js';
import { ACTION, ACTIVE_STATUSES } from '../domain/action.js';
import { TARGET_FILTER } from '../domain/targeting.js';
import { cancelLapsedWindows } from './maintenance-lapse.js';
import { overdueGauge, refreshOverdue } from './overdue.js';
import { TaskRunner, type Task } from './runner.js';
import type { RolloutEngine } from './rollouts.js';
import { resolveSettings, type SchedulerSettings } from './settings.js';
import { holdsNone } from '../store/reads.js';

export type { SchedulerSettings } from './settings.js';

/** What one pass of every task did, per tenant (for tests and logs). */
export interface PassReport {
  readonly autoAssigned: Record<string, number>;
  readonly cleanedUp: Record<string, number>;
  readonly lapsedCanceled: Record<string, number>;
  readonly overdue: Record<string, number>;
  /** Rollout engine steps taken. */
  readonly rollouts: Record<string, number>;
  /** `<task>:<tenant>` skipped because another instance holds the lease. */
  readonly skipped: readonly string[];
}

export interface SchedulerModule extends AppModule {
  readonly settings: SchedulerSettings;
  /** Runs every task once now (under the leases), whatever the intervals. */
  runOnce(now?: number): Promise<PassReport>;
}

/**
 * The scheduler (ARCHITECTURE.md "Scale-out"): auto-assignment, action cleanup, lapsed maintenance
 * windows, the rollout engine's passes (the engine is a shared service, built by the composition root) and the
 * overdue gauge, each on its own interval. Those that write run under a store
 * lease per task and tenant so that, with several instances, each tenant's pass happens once; the
 * overdue count only reads.
 */
export function schedulerModule(
  services: SchedulerDeps & { readonly rolloutEngine: Pick<RolloutEngine, 'run' | 'idle' | 'whenWorkArrives'> }, overrides: Partial<SchedulerSettings> = {},
): SchedulerModule {
  const settings = resolveSettings(services.ctx.config.scheduler, overrides);
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const runner = new TaskRunner({ store: services.store, tenants: services.tenants, owner, log: services.ctx.logger });
  const gauge = overdueGauge(services);
  const autoAssigner = new AutoAssigner(services, settings.autoAssignBatch);
  const engine = services.rolloutEngine;
  // the idle looks (runner.ts): what a task works on is listed in an index; empty, read through the cached view, costs no command
  const { cached } = services.store;
  const rollouts: Task & { readonly reportAs: 'rollouts' } = {
    name: 'rollouts', reportAs: 'rollouts', intervalMs: settings.rolloutMs, leased: true, leaseMs: settings.rolloutLeaseMs,
    run: (t, now, keep) => engine.run(t, now, keep), idle: (t) => engine.idle(t),
  };
  const tasks: (Task & { readonly reportAs: Exclude<keyof PassReport, 'skipped'> })[] = [
    {
      name: 'auto-assign', reportAs: 'autoAssigned', intervalMs: settings.autoAssignMs, leased: true, run: (t, now) => autoAssigner.run(t, now),
      idle: (t) => holdsNone(cached, t, TARGET_FILTER, ['autoAssign', 'on']),
    },
    { name: 'action-cleanup', reportAs: 'cleanedUp', intervalMs: settings.cleanupMs, leased: true, run: (t, now) => cleanupActions(services, t, now) },
    {
      name: 'maintenance', reportAs: 'lapsedCanceled', intervalMs: settings.maintenanceMs, leased: true, run: (t, now) => cancelLapsedWindows(services, t, now),
      // no open action (one index per active status, as openActionIds reads them)
      idle: async (t) => (await Promise.all(ACTIVE_STATUSES.map((s) => holdsNone(cached, t, ACTION, ['status', s])))).every(Boolean),
    },
    rollouts,
    { name: 'overdue', reportAs: 'overdue', intervalMs: settings.overdueMs, leased: false, run: (t, now) => refreshOverdue(services, gauge, t, now) },
  ];

  return {
    name: 'scheduler',
    routes: [],
    // leases keep it correct on any number of loops; with worker threads one contender per process is enough
    primaryOnly: true,
    settings,
    async start() {
      if (!settings.enabled) return;
      runner.start(tasks);
      // a commit that gives the engine work (an action of a rollout closed, a rollout started) runs its pass early
      engine.whenWorkArrives(() => runner.wake(rollouts));
    },
    async stop() {
      engine.whenWorkArrives(undefined);
      await runner.stop(tasks);
    },
    async runOnce(now = services.now()) {
      const report: Record<string, Record<string, number>> = {};
      const skipped: string[] = [];
      for (const task of tasks) {
        const pass = await runner.runNow(task, now);
        report[task.reportAs] = pass.counts;
        skipped.push(...pass.skipped.map((tenant) => `${task.name}:${tenant}`));
      }
      return { ...report, skipped } as unknown as PassReport;
    },
  };
}
