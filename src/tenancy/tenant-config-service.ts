import type { Store, Tenant } from '../store/port.js';
import { retryCommit } from '../store/retry.js';
import type { KindSchema } from '../store/port.js';
import { AppError, concurrent, notFound } from '../domain/errors.js';
import { DS_TYPE, STANDARD_TYPE_KEYS } from '../domain/repository.js';
import {
  CONFIG_KEY_NAMES, DEFAULT_DS_TYPE, coerceValue, isConfigKey, viewOf,
  type ConfigKey, type ConfigValue, type TenantConfigView,
} from '../domain/tenant-config.js';

/** A stored tenant value with its audit fields. */
export interface StoredEntry {
  readonly value: ConfigValue;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly lastModifiedBy: string;
  readonly lastModifiedAt: number;
}

/** One record per tenant (id 1) holding every tenant-specific value. */
export interface TenantConfigRecord {
  readonly id: number;
  readonly values: Readonly<Partial<Record<ConfigKey, StoredEntry>>>;
  /**
   * `default.ds.type`: the id of the tenant's default distribution set type. Absent for tenants set up
   * before it was kept: then the standard type `os_app` is the default, as hawkBit makes it.
   */
  readonly defaultDsType?: number;
}

export const TENANT_CONFIG = 'tenantconfig';
export const tenantConfigSchema: KindSchema<TenantConfigRecord> = { indexes: () => ({}) };
const RECORD_ID = 1;
/** How many `ttlMs` a cached view is served while its reload is under way (see cachedView). */
const STALE_TTLS = 10;

/** What GET /rest/v1/system/configs shows for one key. */
export interface ConfigEntry {
  /** null only for `default.ds.type` of a tenant whose default type is gone. */
  readonly value: ConfigValue | null;
  /** True when no tenant value is set and the global default applies. */
  readonly global: boolean;
  readonly audit?: Omit<StoredEntry, 'value'>;
}

interface Cached {
  readonly view: TenantConfigView;
  readonly record: TenantConfigRecord;
  readonly version: number;
  readonly loadedAt: number;
}

/**
 * Effective tenant configuration: the tenant's stored value, else the tenant's seed from config.yaml,
 * else the global default. Reads are served from an in-process cache (the DDI poll reads polling and
 * authentication keys on every request); writes through this service refresh it at once, and other
 * server instances see a change after at most `ttlMs`.
 * @see spec 2.11, 4.7
 */
export class TenantConfigService {
  readonly #store: Store;
  readonly #seeds: ReadonlyMap<Tenant, Readonly<Partial<Record<ConfigKey, ConfigValue>>>>;
  readonly #globals: Readonly<Record<ConfigKey, ConfigValue>>;
  readonly #ttlMs: number;
  readonly #cache = new Map<Tenant, Cached>();
  readonly #refreshing = new Set<Tenant>();
  readonly #clock: () => number;

  constructor(options: {
    store: Store;
    globals: Readonly<Record<ConfigKey, ConfigValue>>;
    seeds?: ReadonlyMap<Tenant, Readonly<Partial<Record<ConfigKey, ConfigValue>>>>;
    ttlMs?: number;
    clock?: () => number;
  }) {
    this.#store = options.store;
    this.#globals = options.globals;
    this.#seeds = options.seeds ?? new Map();
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * The cached view without I/O, or undefined when it must be loaded. Past `ttlMs` the view is
   * reloaded in the background (one load at a time) while callers keep getting the cached one, up
   * to STALE_TTLS times `ttlMs`: the poll hot path never waits for the reload, and a store that
   * cannot be read is noticed within that bound.
   */
  cachedView(tenant: Tenant): TenantConfigView | undefined {
    const c = this.#cache.get(tenant);
    if (c === undefined) return undefined;
    const age = this.#clock() - c.loadedAt;
    if (age < this.#ttlMs) return c.view;
    if (!this.#refreshing.has(tenant)) {
      this.#refreshing.add(tenant);
      this.#load(tenant, true).then(
        () => this.#refreshing.delete(tenant),
        () => this.#refreshing.delete(tenant), // the next caller tries again; a caller past the bound loads and sees the error
      );
    }
    return age < this.#ttlMs * STALE_TTLS ? c.view : undefined;
  }

  async view(tenant: Tenant): Promise<TenantConfigView> {
    return this.cachedView(tenant) ?? (await this.#load(tenant)).view;
  }

  /** Every key with its effective value and whether it is the global default, and `default.ds.type`. */
  async entries(tenant: Tenant): Promise<Record<string, ConfigEntry>> {
    const { record } = await this.#load(tenant);
    const out: Record<string, ConfigEntry> = Object.fromEntries(CONFIG_KEY_NAMES.map((k) => [k, this.#entry(tenant, record, k)]));
    out[DEFAULT_DS_TYPE] = await this.#defaultDsTypeEntry(tenant, record);
    return out;
  }

  async entry(tenant: Tenant, key: string): Promise<ConfigEntry> {
    if (key === DEFAULT_DS_TYPE) return this.#defaultDsTypeEntry(tenant, (await this.#load(tenant)).record);
    if (!isConfigKey(key)) throw new AppError('CONFIG_KEY_INVALID', `The given configuration key '${key}' does not exist.`);
    const { record } = await this.#load(tenant);
    return this.#entry(tenant, record, key);
  }

  /** The id of the tenant's default distribution set type (`default.ds.type`), if it names one. */
  async defaultDsType(tenant: Tenant): Promise<number | undefined> {
    const { record } = await this.#load(tenant);
    return record.defaultDsType ?? (await this.#store.lookup(tenant, DS_TYPE, 'key', STANDARD_TYPE_KEYS.dsOsApp));
  }

  /**
   * Validates and stores several values atomically (all or none). `default.ds.type` is judged first,
   * as hawkBit handles it first: a number naming an existing distribution set type (else 400, or 404
   * for an id no type has).
   */
  async set(tenant: Tenant, values: Readonly<Record<string, unknown>>, by: string, now: number): Promise<Record<string, ConfigEntry>> {
    const keys = Object.keys(values).filter((k) => k !== DEFAULT_DS_TYPE);
    if (keys.length === 0 && !Object.hasOwn(values, DEFAULT_DS_TYPE)) throw new AppError('BODY_NOT_READABLE', 'no configuration values given');
    const dsType = Object.hasOwn(values, DEFAULT_DS_TYPE) ? await this.#checkDefaultDsType(tenant, values[DEFAULT_DS_TYPE]) : undefined;
    const record = await this.#change(tenant, (current) => {
      const next: Partial<Record<ConfigKey, StoredEntry>> = { ...current.record.values };
      // validate against the values as they will be after this change (pollingTime vs minPollingTime)
      const pending: Partial<Record<ConfigKey, ConfigValue>> = {};
      for (const key of keys) if (isConfigKey(key)) pending[key] = values[key] as ConfigValue;
      const merged = viewOf({ ...this.#effectiveValues(tenant, current.record), ...pending }, this.#globals);
      for (const key of keys) {
        const value = coerceValue(key, values[key], key === 'multi.assignments.enabled' ? current.view : merged);
        const k = key as ConfigKey;
        const old = current.record.values[k];
        next[k] = { value, createdBy: old?.createdBy ?? by, createdAt: old?.createdAt ?? now, lastModifiedBy: by, lastModifiedAt: now };
      }
      const defaultDsType = dsType ?? current.record.defaultDsType;
      return { id: RECORD_ID, values: next, ...(defaultDsType === undefined ? {} : { defaultDsType }) };
    });
    const out: Record<string, ConfigEntry> = Object.fromEntries(keys.map((k) => [k, this.#entry(tenant, record, k as ConfigKey)]));
    if (dsType !== undefined) out[DEFAULT_DS_TYPE] = { value: dsType, global: false };
    return out;
  }

  /** Removes the tenant value of a key; the seed or global default applies afterwards. */
  async reset(tenant: Tenant, key: string): Promise<void> {
    // hawkBit: the default type is tenant metadata, it cannot be deleted (EntityNotFoundException)
    if (key === DEFAULT_DS_TYPE) throw new AppError('NOT_FOUND', `${DEFAULT_DS_TYPE} cannot be deleted, only changed with PUT`);
    if (!isConfigKey(key)) throw new AppError('CONFIG_KEY_INVALID', `The given configuration key '${key}' does not exist.`);
    if (key === 'multi.assignments.enabled' && (await this.view(tenant)).bool(key)) {
      throw new AppError('CONFIG_CHANGE_NOT_ALLOWED', `The configuration key '${key}' cannot be disabled once it was enabled.`);
    }
    await this.#change(tenant, (current) => {
      if (current.record.values[key] === undefined) return undefined;
      const next = { ...current.record.values };
      delete next[key];
      return { ...current.record, values: next };
    });
  }

  /** `default.ds.type` as hawkBit reads it: a JSON number (a fraction cut off), naming an existing type. */
  async #checkDefaultDsType(tenant: Tenant, raw: unknown): Promise<number> {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      throw new AppError('CONFIG_VALUE_INVALID', `The given configuration value for key '${DEFAULT_DS_TYPE}' is invalid: expected the id of a distribution set type (a number), got ${JSON.stringify(raw)}`);
    }
    const id = Math.trunc(raw);
    if ((await this.#store.get(tenant, DS_TYPE, id)) === undefined) throw notFound('DistributionSetType', id);
    return id;
  }

  async #defaultDsTypeEntry(tenant: Tenant, record: TenantConfigRecord): Promise<ConfigEntry> {
    const id = record.defaultDsType ?? (await this.#store.lookup(tenant, DS_TYPE, 'key', STANDARD_TYPE_KEYS.dsOsApp));
    return { value: id ?? null, global: false };
  }

  /** Drops the cached view of a tenant (another instance changed it, or tests). */
  invalidate(tenant?: Tenant): void {
    if (tenant === undefined) this.#cache.clear();
    else this.#cache.delete(tenant);
  }

  #entry(tenant: Tenant, record: TenantConfigRecord, key: ConfigKey): ConfigEntry {
    const stored = record.values[key];
    if (stored !== undefined) {
      const { value, ...audit } = stored;
      return { value, global: false, audit };
    }
    const seed = this.#seeds.get(tenant)?.[key];
    return seed !== undefined ? { value: seed, global: false } : { value: this.#globals[key], global: true };
  }

  #effectiveValues(tenant: Tenant, record: TenantConfigRecord): Partial<Record<ConfigKey, ConfigValue>> {
    const out: Partial<Record<ConfigKey, ConfigValue>> = { ...this.#seeds.get(tenant) };
    for (const k of CONFIG_KEY_NAMES) {
      const v = record.values[k];
      if (v !== undefined) out[k] = v.value;
    }
    return out;
  }

  async #load(tenant: Tenant, fresh = false): Promise<Cached> {
    const cached = this.#cache.get(tenant);
    if (!fresh && cached !== undefined && this.#clock() - cached.loadedAt < this.#ttlMs) return cached;
    const stored = await this.#store.get<TenantConfigRecord>(tenant, TENANT_CONFIG, RECORD_ID);
    const version = stored?.version ?? 0;
    const latest = this.#cache.get(tenant);
    let next: Cached;
    if (latest !== undefined && latest.version >= version) {
      // An unchanged record keeps its view object, because the poll memoises per view (a new one every
      // ttlMs would drop every device's memoised reply); a newer one, loaded by a write meanwhile, stays.
      next = { ...latest, loadedAt: this.#clock() };
    } else {
      const record = stored?.value ?? { id: RECORD_ID, values: {} };
      next = { record, version, view: viewOf(this.#effectiveValues(tenant, record), this.#globals), loadedAt: this.#clock() };
    }
    this.#cache.set(tenant, next);
    return next;
  }

  /**
   * Replaces the tenant's record with what `change` makes of the stored one (none: no change), with
   * compare-and-set retried on concurrent writes; the cache takes the new record at once.
   */
  async #change(tenant: Tenant, change: (current: Cached) => TenantConfigRecord | undefined): Promise<TenantConfigRecord> {
    const result = await retryCommit<TenantConfigRecord>(this.#store, tenant, async () => {
      const current = await this.#load(tenant, true);
      const record = change(current);
      if (record === undefined) return { done: current.record };
      const before = current.version === 0 ? undefined : current.record;
      return {
        commit: { writes: [{ kind: TENANT_CONFIG, id: RECORD_ID, expect: current.version, before, after: record }] },
        result: () => {
          const view = viewOf(this.#effectiveValues(tenant, record), this.#globals);
          this.#cache.set(tenant, { record, version: current.version + 1, view, loadedAt: this.#clock() });
          return record;
        },
      };
    });
    if (!result.ok) throw concurrent('tenant configuration');
    return result.value;
  }
}
