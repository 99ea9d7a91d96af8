import type { Commit, Effect, Store, Tenant } from './port.js';

/**
 * Derives extra effects from what a commit writes, like a database trigger: the observer sees each
 * commit's writes (`before` and `after` of every record) and returns effects that are committed in
 * the same atomic step. A feature that must react to state changes wherever they are made (the DMF
 * connector telling devices about new, started and canceled actions) hooks in here once instead of
 * at every writer.
 */
export type CommitObserver = (tenant: Tenant, commit: Commit) => readonly Effect[];

/** The store with `commit` passing through the observers; every other member is the store's own. */
export function observeCommits(store: Store, observers: readonly CommitObserver[]): Store {
  if (observers.length === 0) return store;
  const commit: Store['commit'] = (tenant, c) => {
    const extra = observers.flatMap((observe) => observe(tenant, c));
    return store.commit(tenant, extra.length === 0 ? c : { ...c, effects: [...(c.effects ?? []), ...extra] });
  };
  // adapters keep #private state: their methods must run with the adapter itself as `this` (bound once each)
  const bound = new Map<PropertyKey, unknown>([['commit', commit]]);
  return new Proxy(store, {
    get(target, property) {
      const known = bound.get(property);
      if (known !== undefined) return known;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const fn = (value as (...args: unknown[]) => unknown).bind(target);
      bound.set(property, fn);
      return fn;
    },
  });
}
