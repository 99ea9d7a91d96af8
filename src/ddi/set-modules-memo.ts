/**
 * The modules of a distribution set as devices see them (`deviceModules`), kept per tenant and set for
 * the DDI deployment replies: every device of a rollout fetches the same set. The memo remembers each
 * read that made it (records and index pages, through the store's cached reads) and what it answered;
 * it holds while every one of them answers the same. The cached reads are kept coherent by the store
 * (this process's writes at once, other processes' when Redis's invalidation arrives), so a module,
 * artifact, type or set that changed, or an artifact added or removed, makes the next use read again.
 * The check costs nothing while `CachedReads.changes` stays where it was at the last check.
 */
import { deviceModules, type DeviceModule } from '../device/modules.js';
import { MISS, type CachedReads, type Page, type Stored } from '../store/port.js';

/** One read the modules were made from and its answer. */
type Dep =
  | { readonly kind: string; readonly id: number; readonly value: Stored<unknown> | undefined }
  | { readonly kind: string; readonly index: string; readonly key: string; readonly page: Page; readonly ids: readonly number[] };

/** A set's modules and what they were made from; replaced (never changed) when a read answers otherwise. */
export class SetModules {
  constructor(
    readonly modules: readonly DeviceModule[],
    readonly deps: readonly Dep[],
    /** `CachedReads.changes` when the deps were last found to hold. */
    public checked: number,
  ) {}
}

/** Sets remembered per process (all tenants); beyond it they all go and are made again. */
const MAX_SETS = 10_000;

export class SetModulesMemo {
  readonly #reads: CachedReads;
  readonly #sets = new Map<string, Map<number, SetModules>>();
  #count = 0;

  constructor(reads: CachedReads) {
    this.#reads = reads;
  }

  /** The set's modules if remembered and still what the reads answer; undefined otherwise (no await). */
  peek(tenant: string, ds: number): SetModules | undefined {
    const memo = this.#sets.get(tenant)?.get(ds);
    if (memo === undefined) return undefined;
    const reads = this.#reads;
    const changes = reads.changes;
    if (memo.checked === changes) return memo;
    if (!holds(reads, tenant, memo.deps)) return undefined;
    memo.checked = changes;
    return memo;
  }

  /** The set's modules: remembered ones that still hold, or read again (through the cached reads) and remembered. */
  async get(tenant: string, ds: number): Promise<SetModules> {
    const known = this.peek(tenant, ds);
    if (known !== undefined) return known;
    const reads = this.#reads;
    const changes = reads.changes;
    const deps: Dep[] = [];
    const modules = await deviceModules(recording(reads, deps), tenant, ds);
    // a read answered from a value invalidated meanwhile does not hold at the next peek
    const memo = new SetModules(modules, deps, changes);
    let byDs = this.#sets.get(tenant);
    if (byDs === undefined) this.#sets.set(tenant, (byDs = new Map<number, SetModules>()));
    if (!byDs.has(ds) && ++this.#count > MAX_SETS) {
      this.#sets.clear();
      this.#count = 1;
      this.#sets.set(tenant, (byDs = new Map<number, SetModules>()));
    }
    byDs.set(ds, memo);
    return memo;
  }
}

/** Whether every read answers what it answered when the modules were made (a value evicted since: no). */
function holds(reads: CachedReads, tenant: string, deps: readonly Dep[]): boolean {
  for (const d of deps) {
    if ('id' in d) {
      if (reads.peekGet(tenant, d.kind, d.id) !== d.value) return false;
      continue;
    }
    const page = reads.peekMembers(tenant, d.kind, d.index, d.key, d.page);
    if (page === MISS || page.ids.length !== d.ids.length) return false;
    for (let i = 0; i < d.ids.length; i++) if (page.ids[i] !== d.ids[i]) return false;
  }
  return true;
}

/** The reads `deviceModules` makes, through `reads`, each noted with its answer in `deps`. */
function recording(reads: CachedReads, deps: Dep[]): Parameters<typeof deviceModules>[0] {
  return {
    get: async <T>(tenant: string, kind: string, id: number): Promise<Stored<T> | undefined> => {
      const value = await reads.get<T>(tenant, kind, id);
      deps.push({ kind, id, value });
      return value;
    },
    getMany: async <T>(tenant: string, kind: string, ids: readonly number[]): Promise<(Stored<T> | undefined)[]> => {
      const values = await reads.getMany<T>(tenant, kind, ids);
      ids.forEach((id, i) => deps.push({ kind, id, value: values[i] }));
      return values;
    },
    members: async (tenant, kind, index, key, page) => {
      const found = await reads.members(tenant, kind, index, key, page);
      deps.push({ kind, index, key, page, ids: found.ids });
      return found;
    },
  };
}
