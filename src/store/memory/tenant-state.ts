import type { CommitResult, Stored } from '../port.js';
import type { CommitPlan } from '../plan.js';
import { SortedIds } from './sorted-ids.js';

type Failure = Extract<CommitResult, { ok: false }>;

type Nested<T> = Map<string, Map<string, T>>;

/**
 * All data of one tenant. Indexes nest by kind and index name (the callers' constant strings, whose
 * hashes V8 keeps) before the key: a read builds no joined key string to hash (the poll reads two).
 */
export class TenantState {
  readonly records = new Map<string, Map<number, Stored<unknown>>>();
  /** kind -> every id of the kind (score = id). */
  readonly all = new Map<string, SortedIds>();
  /** kind -> index -> key -> id */
  readonly #unique: Nested<Map<string, number>> = new Map();
  /** kind -> index -> key -> ids */
  readonly #multi: Nested<Map<string, SortedIds>> = new Map();
  readonly seq = new Map<string, number>();
  /** counter key -> field -> value */
  readonly counters = new Map<string, Map<string, number>>();
  /** dedupe key -> expiry (ms); insertion order is expiry order, since the TTL is constant */
  readonly #done = new Map<string, number>();

  /** key -> id of one unique index. */
  unique(kind: string, index: string): Map<string, number> | undefined {
    return this.#unique.get(kind)?.get(index);
  }

  /** The ids under one key of a multi index. */
  multi(kind: string, index: string, key: string): SortedIds | undefined {
    return this.#multi.get(kind)?.get(index)?.get(key);
  }

  /** The first reason the commit cannot apply, checked in the Redis script's order. */
  verify(plan: CommitPlan, now: number): Failure | undefined {
    if (plan.dedupe !== undefined && (this.#done.get(plan.dedupe) ?? 0) > now) return { ok: false, reason: 'duplicate' };
    for (const w of plan.writes) {
      const current = this.records.get(w.kind)?.get(w.id)?.version ?? 0;
      if (current !== w.expect) return { ok: false, reason: 'stale-version', kind: w.kind, id: w.id };
    }
    // a key released by its holder in this same commit may be claimed by another record (a swap)
    const released = new Set<string>();
    for (const r of plan.releases) {
      if (this.unique(r.kind, r.index)?.get(r.key) === r.id) released.add(`${r.kind}\0${r.index}\0${r.key}`);
    }
    const claimed = new Map<string, number>();
    for (const c of plan.claims) {
      const slot = `${c.kind}\0${c.index}\0${c.key}`;
      const earlier = claimed.get(slot);
      const holder = earlier ?? (released.has(slot) ? undefined : this.unique(c.kind, c.index)?.get(c.key));
      if (holder !== undefined && holder !== c.id) return { ok: false, reason: 'unique-conflict', kind: c.kind, index: c.index, key: c.key };
      claimed.set(slot, c.id);
    }
    return undefined;
  }

  /** Applies a verified plan; `values` are the frozen copies of the writes' `after` (null deletes). */
  apply(plan: CommitPlan, values: readonly unknown[]): number[] {
    for (const r of plan.releases) {
      const map = this.unique(r.kind, r.index);
      if (map?.get(r.key) === r.id) map.delete(r.key);
    }
    for (const c of plan.claims) nested(this.#unique, c.kind, c.index, () => new Map<string, number>()).set(c.key, c.id);
    for (const m of plan.removes) {
      const keys = this.#multi.get(m.kind)?.get(m.index);
      const set = keys?.get(m.key);
      if (set !== undefined && set.remove(m.id) && set.size === 0) keys?.delete(m.key);
    }
    for (const m of plan.adds) {
      const keys = nested(this.#multi, m.kind, m.index, () => new Map<string, SortedIds>());
      let set = keys.get(m.key);
      if (set === undefined) keys.set(m.key, (set = new SortedIds()));
      set.add(m.id, m.score);
    }
    for (const c of plan.counters) {
      let hash = this.counters.get(c.key);
      if (hash === undefined) this.counters.set(c.key, (hash = new Map<string, number>()));
      hash.set(c.field, (hash.get(c.field) ?? 0) + c.by);
    }
    return plan.writes.map((w, i) => {
      let records = this.records.get(w.kind);
      if (records === undefined) this.records.set(w.kind, (records = new Map<number, Stored<unknown>>()));
      let all = this.all.get(w.kind);
      if (all === undefined && w.listed) this.all.set(w.kind, (all = new SortedIds()));
      const value = values[i];
      if (value === null) {
        records.delete(w.id);
        all?.remove(w.id);
        return 0;
      }
      const version = w.expect + 1;
      records.set(w.id, Object.freeze({ id: w.id, version, value }));
      if (w.expect === 0) all?.add(w.id, w.id);
      return version;
    });
  }

  markDone(key: string, now: number, ttlMs: number): void {
    // drop expired markers from the front: with one TTL for all, insertion order is expiry order
    for (const [k, at] of this.#done) {
      if (at > now) break;
      this.#done.delete(k);
    }
    this.#done.set(key, now + ttlMs);
  }
}

/** The value under kind and index, created when missing. */
function nested<T>(map: Nested<T>, kind: string, index: string, make: () => T): T {
  let byIndex = map.get(kind);
  if (byIndex === undefined) map.set(kind, (byIndex = new Map<string, T>()));
  let value = byIndex.get(index);
  if (value === undefined) byIndex.set(index, (value = make()));
  return value;
}
