import type { Commit, CommitResult, Store, Tenant } from './port.js';

/**
 * The one compare-and-set retry loop. Each attempt reads what it needs, decides, and hands back the
 * commit to try (or a result without writing); a commit that lost to a concurrent writer
 * (`stale-version`) runs the attempt again after a short jittered wait, so writers that collided do
 * not collide again in lockstep.
 */
export type Attempt<T> =
  | { readonly done: T }
  | { readonly commit: Commit; readonly result: (versions: readonly number[]) => T };

export type Retried<T> =
  | { readonly ok: true; readonly value: T }
  | Exclude<CommitResult, { readonly ok: true } | { readonly reason: 'stale-version' }>
  /** Lost the compare-and-set more often than the budget allows. */
  | { readonly ok: false; readonly reason: 'contended' };

/** Attempts for a request-scoped change (a Management write); the actor runtime allows more. */
export const DEFAULT_ATTEMPTS = 8;

/** Jittered wait after attempt `n` lost: none after the first, then up to 4, 8, 16, 32, 50 ms. */
export function retryDelay(n: number): number {
  return n < 2 ? 0 : Math.random() * Math.min(50, 2 ** Math.min(n, 6));
}

export async function retryCommit<T>(
  store: Pick<Store, 'commit'>, tenant: Tenant, attempt: (n: number) => Promise<Attempt<T>>, maxAttempts = DEFAULT_ATTEMPTS,
): Promise<Retried<T>> {
  for (let n = 1; n <= maxAttempts; n++) {
    const next = await attempt(n);
    if ('done' in next) return { ok: true, value: next.done };
    const result = await store.commit(tenant, next.commit);
    if (result.ok) return { ok: true, value: next.result(result.versions) };
    if (result.reason !== 'stale-version') return result;
    const wait = retryDelay(n);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { ok: false, reason: 'contended' };
}
