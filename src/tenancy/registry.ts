import { AppError, concurrent, notFound } from '../domain/errors.js';
import { MISS, type Store, type Stored, type Tenant } from '../store/port.js';
import { retryCommit, type Retried } from '../store/retry.js';
import { bootstrapTenant } from './bootstrap.js';
import {
  DIRECTORY_ID, SYSTEM_SCOPE, TENANT_DIRECTORY, type RuntimeTenant, type TenantDirectoryRecord, type TenantUser,
} from './directory.js';

/**
 * The tenants there are now: config.yaml's and the ones created at runtime. Every loop that works per
 * tenant (the effects dispatcher, the scheduler's and the webhooks' runners, the status gauges) asks
 * `list()` on each pass, and every request that names a tenant (DDI, DMF) asks `has()`, so a tenant
 * created or deleted on any instance is served, or refused, without a restart.
 */
export interface Tenants {
  /** Canonical names, config.yaml's first (in its order), then the runtime ones (oldest first). */
  list(): readonly Tenant[];
  has(tenant: Tenant): boolean;
}

/** A tenant's Management users, as config.yaml declares them (the shape sign-in reads). */
export interface TenantAccounts {
  readonly name: string;
  readonly users: readonly TenantUser[];
}

export interface NewTenant {
  /** Canonical. */
  readonly name: string;
  readonly users: readonly TenantUser[];
}

interface Snapshot {
  /** The directory record's version it was built from (0: none yet). */
  readonly version: number;
  readonly list: readonly Tenant[];
  readonly known: ReadonlySet<Tenant>;
  /** A new array only when the directory changed: sign-in caches its account directory by identity. */
  readonly accounts: readonly TenantAccounts[];
  readonly runtime: ReadonlyMap<Tenant, RuntimeTenant>;
}

/**
 * The one tenant registry of an event loop (src/app/services.ts builds it). The runtime tenants live in
 * one store record (directory.ts); each call looks at it through the store's cached reads, which every
 * write by any instance invalidates (Redis client-side caching; the memory store is its own cache), and
 * rebuilds its lists only when the record's version moved. A value evicted from the cache is read again
 * in the background; until then the last lists answer.
 */
export class TenantRegistry implements Tenants {
  readonly #store: Store;
  readonly #configured: readonly TenantAccounts[];
  readonly #configuredNames: ReadonlySet<Tenant>;
  #snapshot: Snapshot;
  #loading: Promise<unknown> | undefined;
  /** `CachedReads.changes` when the directory was last peeked at and found in the cache. */
  #checked = -1;

  constructor(store: Store, configured: readonly TenantAccounts[]) {
    this.#store = store;
    this.#configured = configured;
    this.#configuredNames = new Set(configured.map((t) => t.name));
    this.#snapshot = this.#build(undefined);
  }

  /** Reads the directory (at start, before anything asks). */
  async load(): Promise<void> {
    this.#take(await this.#store.cached.get<TenantDirectoryRecord>(SYSTEM_SCOPE, TENANT_DIRECTORY, DIRECTORY_ID));
  }

  list(): readonly Tenant[] {
    return this.#current().list;
  }

  has(tenant: Tenant): boolean {
    return this.#current().known.has(tenant);
  }

  /** Every tenant's Management users: config.yaml's, then the runtime tenants'. */
  accounts(): readonly TenantAccounts[] {
    return this.#current().accounts;
  }

  isConfigured(tenant: Tenant): boolean {
    return this.#configuredNames.has(tenant);
  }

  /** A tenant created at runtime (not one being deleted). */
  runtime(tenant: Tenant): RuntimeTenant | undefined {
    return this.#current().runtime.get(tenant);
  }

  /**
   * Sets up the tenant's repository (bootstrap.ts: the standard types) and then lists it, so no loop
   * sees it before its types exist. 409 when the name is config.yaml's, a runtime tenant's, or one being deleted.
   */
  async create(tenant: NewTenant, by: string, now: number): Promise<RuntimeTenant> {
    const taken = (record: TenantDirectoryRecord | undefined): AppError | undefined =>
      this.#configuredNames.has(tenant.name) || record?.tenants.some((t) => t.name === tenant.name) === true
        ? new AppError('ALREADY_EXISTS', `Tenant ${tenant.name} already exists`)
        : undefined;
    const first = taken((await this.#read())?.value);
    if (first !== undefined) throw first;
    await bootstrapTenant(this.#store, tenant.name, now);
    const entry: RuntimeTenant = { name: tenant.name, createdAt: now, createdBy: by, users: tenant.users };
    await this.#change(tenant.name, (record) => {
      const conflict = taken(record);
      if (conflict !== undefined) throw conflict;
      return { after: { tenants: [...(record?.tenants ?? []), entry] }, value: entry };
    });
    return entry;
  }

  /**
   * Deletes a runtime tenant and its data: marks it deleting (every reader drops it at once: requests
   * are refused, loops skip it), drops its keys (Store.dropTenant), then removes the entry. A
   * deletion cut short (a crash) is finished by the next DELETE. config.yaml's tenants: 403.
   */
  async remove(tenant: Tenant): Promise<void> {
    if (this.#configuredNames.has(tenant)) {
      throw new AppError('READ_ONLY', `Tenant ${tenant} is configured in config.yaml: remove it there and restart`);
    }
    await this.#change(tenant, (record) => {
      const entry = record?.tenants.find((t) => t.name === tenant);
      if (entry === undefined) throw notFound('Tenant', tenant);
      const marked: RuntimeTenant = { ...entry, deleting: true };
      return { after: { tenants: record!.tenants.map((t) => (t === entry ? marked : t)) }, value: undefined };
    });
    await this.#store.dropTenant(tenant);
    await this.#change(tenant, (record) => ({
      after: { tenants: (record?.tenants ?? []).filter((t) => t.name !== tenant) }, value: undefined,
    }));
  }

  #read(): Promise<Stored<TenantDirectoryRecord> | undefined> {
    return this.#store.get<TenantDirectoryRecord>(SYSTEM_SCOPE, TENANT_DIRECTORY, DIRECTORY_ID);
  }

  /** One compare-and-set of the directory record; `edit` throws to refuse. */
  async #change<T>(
    tenant: Tenant, edit: (record: TenantDirectoryRecord | undefined) => { after: TenantDirectoryRecord; value: T },
  ): Promise<T> {
    const result: Retried<T> = await retryCommit(this.#store, SYSTEM_SCOPE, async () => {
      const current = await this.#read();
      const { after, value } = edit(current?.value);
      const write = { kind: TENANT_DIRECTORY, id: DIRECTORY_ID, expect: current?.version ?? 0, before: current?.value, after };
      return { commit: { writes: [write] }, result: () => value };
    });
    if (!result.ok) throw concurrent('Tenant', tenant);
    await this.load(); // this loop's lists show its own change before the request answers
    return result.value;
  }

  #current(): Snapshot {
    const cached = this.#store.cached;
    const changes = cached.changes;
    // nothing this process cached moved since the last look: the lists stand (every DDI request asks)
    if (changes === this.#checked) return this.#snapshot;
    const stored = cached.peekGet<TenantDirectoryRecord>(SYSTEM_SCOPE, TENANT_DIRECTORY, DIRECTORY_ID);
    if (stored === MISS) {
      // evicted or not read yet: read it in the background (one read at a time), answer with what we had
      this.#loading ??= this.load().catch(() => undefined).finally(() => (this.#loading = undefined));
      return this.#snapshot;
    }
    this.#checked = changes;
    return this.#take(stored);
  }

  /** The lists of this directory record (rebuilt only when its version moved). */
  #take(stored: Stored<TenantDirectoryRecord> | undefined): Snapshot {
    if ((stored?.version ?? 0) !== this.#snapshot.version) this.#snapshot = this.#build(stored);
    return this.#snapshot;
  }

  #build(stored: Stored<TenantDirectoryRecord> | undefined): Snapshot {
    // a runtime entry whose name config.yaml took since is config.yaml's
    const live = (stored?.value.tenants ?? []).filter((t) => t.deleting !== true && !this.#configuredNames.has(t.name));
    const list = [...this.#configured.map((t) => t.name), ...live.map((t) => t.name)];
    return {
      version: stored?.version ?? 0,
      list,
      known: new Set(list),
      accounts: [...this.#configured, ...live],
      runtime: new Map(live.map((t) => [t.name, t])),
    };
  }
}
