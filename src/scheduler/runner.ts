import type { Store } from '../store/port.js';
import type { Tenants } from '../tenancy/registry.js';

/** One periodic job, run for each tenant in turn. */
export interface Task {
  readonly name: string;
  readonly intervalMs: number;
  /** Work that must happen once across instances takes the store lease `scheduler:<name>:<tenant>`. */
  readonly leased: boolean;
  /** How long the lease lives unless renewed (default: three intervals, at least 30 s). */
  readonly leaseMs?: number;
  /**
   * One tenant's pass; returns what it did (a count, for reports). A long pass calls `keep` between
   * its batches: it renews the lease, and throws LeaseLostError when another instance took it over.
   */
  run(tenant: string, now: number, keep: () => Promise<void>): Promise<number>;
  /**
   * A cheap read-only look before the pass, meant to cost no Redis command (a read of the store's cached view,
   * which every instance's writes invalidate): true when the tenant has nothing to do, and the pass (and its
   * lease) is skipped. Not asked for a tenant's first pass on this runner nor once SWEEP_MS passed since its
   * last full pass: that pass runs whatever the look would say (the safety sweep).
   */
  idle?(tenant: string, now: number): Promise<boolean>;
}

/**
 * How long an idle look is trusted before a tenant gets a full pass anyway: the safety sweep for work its look
 * missed. Slow, because a look misses only what the cache's coherence misses (Redis pushes every write's
 * invalidation to every instance, and a lost connection empties the cache): a bug, not an operating condition.
 * A sweep of every task costs about 30 commands for an idle tenant (leases and index reads; measured with
 * MONITOR): every 5 minutes that is 0.1 command a second, every minute it would be half the idle cost.
 */
export const SWEEP_MS = 300_000; // 5 minutes

/**
 * A woken task's next pass starts this long after the wake, or after the pass running then: a burst of
 * wakes (every device of a group reporting within a second) brings passes forward at most this often.
 */
const WAKE_GAP_MS = 20;

/** The lease of a pass moved to another instance while it ran (it stops; the new holder goes on). */
export class LeaseLostError extends Error {}

export interface PassResult {
  /** Count per tenant that ran here. */
  readonly counts: Record<string, number>;
  /** Tenants whose lease another instance holds. */
  readonly skipped: readonly string[];
}

interface Log {
  error(obj: object, msg: string): void;
}

/**
 * Runs tasks on their intervals. A leased task runs a tenant only on the instance holding that
 * tenant's lease; the holder renews it on every pass (it lives three intervals, at least 30 s), so
 * work stays put while its holder is alive and moves when it dies, and tenants may spread over
 * instances. Passes of one task never overlap.
 */
export class TaskRunner {
  readonly #store: Store;
  readonly #tenants: Pick<Tenants, 'list'>;
  readonly #owner: string;
  readonly #log: Log;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Map<string, Promise<PassResult>>();
  /** Tasks woken while their pass ran (the next follows WAKE_GAP_MS after it) or whose timer a wake set short. */
  readonly #woken = new Set<string>();
  /** Per task, the tenants' last full pass (ms of the pass): their idle look is trusted until SWEEP_MS after it. */
  readonly #swept = new Map<string, Map<string, number>>();
  #stopped = true;

  constructor(opts: { store: Store; tenants: Pick<Tenants, 'list'>; owner: string; log: Log }) {
    this.#store = opts.store;
    this.#tenants = opts.tenants;
    this.#owner = opts.owner;
    this.#log = opts.log;
  }

  start(tasks: readonly Task[]): void {
    this.#stopped = false;
    for (const task of tasks) this.#schedule(task);
  }

  async stop(tasks: readonly Task[]): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled([...this.#running.values()]);
    for (const task of tasks.filter((t) => t.leased)) {
      for (const tenant of this.#tenants.list()) {
        await this.#store.releaseLease(leaseName(task, tenant), this.#owner).catch(() => undefined);
      }
    }
  }

  /**
   * Brings a started task's next pass forward, to WAKE_GAP_MS from now or after the pass running: what it
   * works on changed (the rollout engine's wake-ups, rollout-wake.ts). Without wakes it runs on its interval.
   */
  wake(task: Task): void {
    if (this.#stopped || this.#woken.has(task.name)) return;
    this.#woken.add(task.name);
    if (this.#running.has(task.name)) return;
    const timer = this.#timers.get(task.name);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(task.name);
    this.#schedule(task, WAKE_GAP_MS);
  }

  /** One pass now, after the one running (if any). */
  runNow(task: Task, now: number): Promise<PassResult> {
    const current = this.#running.get(task.name);
    if (current !== undefined) return current.then(() => this.runNow(task, now));
    const pass = this.#pass(task, now).finally(() => this.#running.delete(task.name));
    this.#running.set(task.name, pass);
    return pass;
  }

  async #pass(task: Task, now: number): Promise<PassResult> {
    const counts: Record<string, number> = {};
    const skipped: string[] = [];
    const ttl = task.leaseMs ?? Math.max(task.intervalMs * 3, 30_000);
    const swept = this.#sweeps(task);
    // asked on each pass: a tenant created since runs now, a deleted one no more (its lease expires)
    const tenants = this.#tenants.list();
    for (const tenant of tenants) {
      const last = swept.get(tenant);
      const trusted = last !== undefined && now >= last && now - last < SWEEP_MS;
      if (trusted && task.idle !== undefined && await task.idle(tenant, now).catch(() => false)) {
        counts[tenant] = 0;
        continue;
      }
      swept.set(tenant, now);
      const renew = () => this.#store.acquireLease(leaseName(task, tenant), this.#owner, ttl);
      if (task.leased && !(await renew())) {
        skipped.push(tenant);
        continue;
      }
      const keep = async (): Promise<void> => {
        if (task.leased && !(await renew())) throw new LeaseLostError(`lease ${leaseName(task, tenant)} was taken over`);
      };
      try {
        counts[tenant] = await task.run(tenant, now, keep);
      } catch (err) {
        if (err instanceof LeaseLostError) {
          skipped.push(tenant);
          continue;
        }
        // one tenant's failure does not hold up the others
        this.#log.error({ err, task: task.name, tenant }, 'scheduler pass failed');
      }
    }
    if (swept.size > tenants.length) for (const t of swept.keys()) if (!tenants.includes(t)) swept.delete(t);
    return { counts, skipped };
  }

  #sweeps(task: Task): Map<string, number> {
    let swept = this.#swept.get(task.name);
    if (swept === undefined) this.#swept.set(task.name, (swept = new Map<string, number>()));
    return swept;
  }

  #schedule(task: Task, delayMs = task.intervalMs): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(task.name);
      // a wake from here on (during the pass) brings the pass after this one forward
      this.#woken.delete(task.name);
      this.runNow(task, Date.now())
        .catch((err: unknown) => this.#log.error({ err, task: task.name }, 'scheduler pass failed'))
        .finally(() => this.#schedule(task, this.#woken.has(task.name) ? WAKE_GAP_MS : task.intervalMs));
    }, delayMs);
    timer.unref();
    this.#timers.set(task.name, timer);
  }
}

export function leaseName(task: Pick<Task, 'name'>, tenant: string): string {
  return `scheduler:${task.name}:${tenant}`;
}
