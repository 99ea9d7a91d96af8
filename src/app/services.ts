import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { join } from 'node:path';
import { ActorRuntime } from '../actors/runtime.js';
import { ACTORS } from '../actors/kinds.js';
import { EffectDispatcher } from '../actors/dispatcher.js';
import { effectHandlers, type DmfHooks } from '../actors/effects.js';
import { ArtifactStorage } from '../artifacts/index.js';
import { activityListener } from '../observability/activity.js';
import { EventHub } from '../events/hub.js';
import { createHashPool } from '../artifacts/hash-pool.js';
import { createAuth, type Auth } from '../auth/index.js';
import type { PermissionRequirement } from '../http/auth-basic.js';
import { requiring } from '../http/auth-doc.js';
import type { Authenticator } from '../http/types.js';
import { canonicalTenant } from '../domain/ids.js';
import type { Quotas } from '../domain/quotas.js';
import { builtInDefaults, isConfigKey, seedProblem, type ConfigKey, type ConfigValue } from '../domain/tenant-config.js';
import { TenantConfigService } from '../tenancy/tenant-config-service.js';
import type { Config } from '../config/index.js';
import type { Store } from '../store/port.js';
import type { ModuleContext } from './module.js';

/**
 * The shared services every feature module uses, built once per server. They need the open store,
 * which exists only after the modules are built, so each is created on first use (in a handler or
 * a module's start()).
 */
export interface Services {
  readonly ctx: ModuleContext;
  /** The open store (`ctx.store`): read it in handlers and start(), never while modules are built. */
  readonly store: Store;
  /** Management list paging (config.yaml `limits`). */
  readonly limits: Pick<Config['limits'], 'defaultPageSize' | 'maxPageSize'>;
  readonly quotas: Quotas;
  /** Canonical (upper-case) names of the configured tenants. */
  readonly tenants: readonly string[];
  readonly runtime: ActorRuntime;
  readonly dispatcher: EffectDispatcher;
  readonly tenantConfig: TenantConfigService;
  readonly artifacts: ArtifactStorage;
  /** Follows the tenants' journals for the live event streams of this loop (src/events). */
  readonly events: EventHub;
  /**
   * Plugs the DMF connector (src/dmf) into the actors: the runtime commits the effects its observer
   * derives from actor changes, the dispatcher hands them to its outbound port. Call it while the
   * modules are built: the runtime and the dispatcher take both when they are created.
   */
  connectDmf(dmf: DmfHooks): void;
  /** Sign-in (src/auth): session cookies, the OpenID provider, the Management authenticator. */
  readonly auth: Auth;
  /** Authentication for Management routes (Basic, Bearer, session cookie), requiring the given permission(s). */
  mgmtAuth(permission?: PermissionRequirement): Authenticator;
  /** Milliseconds since the epoch; one place to read the clock. */
  now(): number;
  /** Releases what services hold (hash worker threads). */
  close(): Promise<void>;
}

export function createServices(ctx: ModuleContext): Services {
  const { config } = ctx;
  const quotas: Quotas = config.quotas;
  const tenants = config.tenants.map((t) => canonicalTenant(t.name));
  // checked here, so a bad seed stops the start rather than a later request
  const seeds = new Map(config.tenants.map((t) => [canonicalTenant(t.name), seedValues(t.config as Record<string, unknown>)]));
  let runtime: ActorRuntime | undefined;
  let dispatcher: EffectDispatcher | undefined;
  let tenantConfig: TenantConfigService | undefined;
  let artifacts: ArtifactStorage | undefined;
  let events: EventHub | undefined;
  let hashPool: ReturnType<typeof createHashPool> | undefined;
  const auth = createAuth(config, () => Date.now());
  let dmf: DmfHooks | undefined;

  const services: Services = {
    ctx,
    get store() {
      return ctx.store;
    },
    limits: config.limits,
    quotas,
    tenants,
    get runtime() {
      const observers = dmf === undefined ? [] : [dmf.observer];
      return (runtime ??= new ActorRuntime(ctx.store, ACTORS, observers, activityListener(ctx.logger, ctx.metrics)));
    },
    get dispatcher() {
      return (dispatcher ??= new EffectDispatcher(ctx.store, {
        // one consumer per event loop: each worker thread (src/workers.ts) dispatches what its requests commit
        consumer: threadId === 0 ? `${hostname()}-${process.pid}` : `${hostname()}-${process.pid}-${threadId}`,
        tenants: () => tenants,
        handlers: effectHandlers({ store: ctx.store, runtime: services.runtime, dmf: dmf?.outbound, log: ctx.logger }),
        log: ctx.logger,
        onSettleTimeout: () => ctx.metrics.settleTimedOut(),
      }));
    },
    get tenantConfig() {
      return (tenantConfig ??= new TenantConfigService({
        store: ctx.store,
        globals: { ...builtInDefaults(), 'compat.managementApi': config.compat.managementApi },
        seeds,
        // one process on the memory store sees every write; several instances on Redis re-read each second
        ttlMs: config.store.kind === 'memory' ? Number.POSITIVE_INFINITY : 1000,
      }));
    },
    get artifacts() {
      hashPool ??= createHashPool();
      return (artifacts ??= new ArtifactStorage({ dataDir: join(config.dataDir), hashPool }));
    },
    get events() {
      return (events ??= new EventHub(ctx.store, { log: ctx.logger }));
    },
    connectDmf(hooks) {
      if (runtime !== undefined || dispatcher !== undefined) {
        throw new Error('connectDmf: call it before the runtime and the dispatcher are created');
      }
      dmf = hooks;
    },
    auth,
    mgmtAuth: (permission) => requiring(auth.mgmtAuth(permission), permission),
    now: () => Date.now(),
    async close() {
      await hashPool?.close();
    },
  };
  return services;
}

/** Tenant seeds from config.yaml: only known keys (validated again when written through the API). */
function seedValues(raw: Readonly<Record<string, unknown>>): Partial<Record<ConfigKey, ConfigValue>> {
  const out: Partial<Record<ConfigKey, ConfigValue>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isConfigKey(key)) throw new Error(`config.yaml: tenants[].config.${key}: unknown tenant configuration key`);
    if (typeof value !== 'boolean' && typeof value !== 'number' && typeof value !== 'string') {
      throw new Error(`config.yaml: tenants[].config.${key}: expected a boolean, number or string`);
    }
    const problem = seedProblem(key, value);
    if (problem !== undefined) throw new Error(`config.yaml: tenants[].config.${key}: ${problem}`);
    out[key] = value;
  }
  return out;
}
