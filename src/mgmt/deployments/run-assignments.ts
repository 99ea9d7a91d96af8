import { assignOffline, assignOnline, type AssignmentOutcome, type AssignmentRequest } from '../../actors/assign.js';
import type { DeploymentDeps } from './deps.js';

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
  deps: DeploymentDeps, tenant: string, requests: readonly AssignmentRequest[], offline: boolean, now: number,
): Promise<AssignmentRun> {
  const cfg = await deps.tenantConfig.view(tenant);
  const assign = { store: deps.store, runtime: deps.runtime, maxActionsPerTarget: deps.quotas.maxActionsPerTarget };
  const byTarget = new Map<number, number[]>();
  requests.forEach((r, i) => byTarget.set(r.targetId, [...(byTarget.get(r.targetId) ?? []), i]));
  const queues = [...byTarget.values()];
  const outcomes: AssignmentOutcome[] = new Array<AssignmentOutcome>(requests.length);
  const settles: Promise<boolean>[] = [];
  const worker = async (): Promise<void> => {
    for (let q = queues.shift(); q !== undefined; q = queues.shift()) {
      for (const i of q) {
        const req = requests[i] as AssignmentRequest;
        const outcome = offline ? await assignOffline(assign, tenant, req, now) : await assignOnline(assign, tenant, req, cfg, now);
        if (outcome.kind === 'assigned') settles.push(deps.dispatcher.settle(outcome.effectIds));
        outcomes[i] = outcome;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queues.length) }, worker));
  return { outcomes, settled: Promise.all(settles) };
}
