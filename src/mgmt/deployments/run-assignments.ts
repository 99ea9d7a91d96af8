import { assignOffline, assignOnline, type AssignmentOutcome, type AssignmentRequest } from '../../actors/assign.js';
import type { Services } from '../../app/services.js';

/** How many targets are assigned at the same time (each is its own actor; the machine has 2 cores). */
const PARALLEL = 8;

export interface AssignmentRun {
  /** One outcome per request, in request order. */
  readonly outcomes: AssignmentOutcome[];
  /** Resolves when the effects of these assignments (obsolete actions cancelled) were handled. */
  readonly settled: Promise<unknown>;
}

/**
 * Runs assignments through the assignment service: requests of one target one after another (several
 * only with multi-assignment), different targets in parallel. Each assignment's effects are awaited
 * with `dispatcher.settle` from the moment it committed, so none is missed.
 */
export async function runAssignments(
  services: Services, tenant: string, requests: readonly AssignmentRequest[], offline: boolean, now: number,
): Promise<AssignmentRun> {
  const cfg = await services.tenantConfig.view(tenant);
  const deps = { store: services.ctx.store, runtime: services.runtime, maxActionsPerTarget: services.quotas.maxActionsPerTarget };
  const byTarget = new Map<number, number[]>();
  requests.forEach((r, i) => byTarget.set(r.targetId, [...(byTarget.get(r.targetId) ?? []), i]));
  const queues = [...byTarget.values()];
  const outcomes: AssignmentOutcome[] = new Array<AssignmentOutcome>(requests.length);
  const settles: Promise<boolean>[] = [];
  const worker = async (): Promise<void> => {
    for (let q = queues.shift(); q !== undefined; q = queues.shift()) {
      for (const i of q) {
        const req = requests[i] as AssignmentRequest;
        const outcome = offline ? await assignOffline(deps, tenant, req, now) : await assignOnline(deps, tenant, req, cfg, now);
        if (outcome.kind === 'assigned') settles.push(services.dispatcher.settle(outcome.effectIds));
        outcomes[i] = outcome;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queues.length) }, worker));
  return { outcomes, settled: Promise.all(settles) };
}
