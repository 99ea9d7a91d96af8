import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { join } from 'node:path';
import { ActorRuntime, type CommitListener } from '../actors/runtime.js';
import { ACTORS } from '../actors/kinds.js';
import { EffectDispatcher } from '../actors/dispatcher.js';
import { effectHandlers } from '../actors/effect-handlers.js';
import { ArtifactStorage } from '../artifacts/index.js';
import { activityListener } from '../observability/activity.js';
import { EventHub } from '../events/hub.js';
import { createHashPool } from '../artifacts/hash-pool.js';
import { createAuth, type Auth } from '../auth/index.js';
import { dmfLink, type DmfLink } from '../dmf/index.js';
import type { PermissionRequirement } from '../http/auth-basic.js';
import { requiring } from '../http/auth-doc.js';
import type { Authenticator } from '../http/types.js';
import { canonicalTenant } from '../domain/ids.js';
import type { Quotas } from '../domain/quotas.js';
import { builtInDefaults, isConfigKey, seedProblem, type ConfigKey, type ConfigValue } from '../domain/tenant-config.js';
import { TenantConfigService } from '../tenancy/tenant-config-service.js';
import { TenantRegistry } from '../tenancy/registry.js';
import type { Config } from '../config/index.js';
import type { Store } from '../store/port.js';
import type { ModuleContext } from '../module.js';
import { RolloutEngine } from '../scheduler/rollouts.js';

/**
 * The shared services, built once per event loop on the open store before any module; the module
 * registry (modules.ts) hands each module the part it declares. Only the composition root knows this type.
 */
export interface Services {
  readonly ctx: ModuleContext;
  /** The open store, with the schema of every record kind (src/app/schema.ts). */
  readonly store: Store;
  /** Management list paging (config.yaml `limits`). */
  readonly limits: Pick<Config['limits'], 'defaultPageSize' | 'maxPageSize'>;
  readonly quotas: Quotas;
  /** The tenants there are: config.yaml's and the ones created at runtime (src/tenancy/registry.ts). */
  readonly tenants: TenantRegistry;
  readonly runtime: ActorRuntime;
  readonly dispatcher: EffectDispatcher;
  /** The rollout engine: the scheduler runs its passes, Management operations advance one rollout with it. */
  readonly rolloutEngine: RolloutEngine;
  readonly tenantConfig: TenantConfigService;
  readonly artifacts: ArtifactStorage;
  /** Follows the tenants' journals for the live event streams of this loop (src/events). */
  readonly events: EventHub;
  /** The DMF connector's half the actors use (its observer and outbound port), when `dmf.enabled`. */
  readonly dmf: DmfLink | undefined;
  /** Sign-in (src/auth): session cookies, the OpenID provider, the Management authenticator. */
  readonly auth: Auth;
  /** Authentication for Management routes (Basic, Bearer, session cookie), requiring the given permission(s). */
  mgmtAuth(permission?: PermissionRequirement): Authenticator;
  /** Milliseconds since the epoch; one place to read the clock. */
  now(): number;
  /** Releases what services hold (hash worker threads). */
  close(): Promise<void>;
}

/**
 * In the order each needs the one before: tenant configuration on the store, the DMF link (it reads
 * tenant configuration), the runtime with the DMF observer, the dispatcher with the DMF outbound port,
 * the rollout engine on the runtime.
 */
export function createServices(ctx: ModuleContext, store: Store): Services {
  const { config, logger } = ctx;
  const tenants = new TenantRegistry(store, config.tenants.map((t) => ({ name: canonicalTenant(t.name), users: t.users })));
  // checked here, so a bad seed stops the start rather than a later request
  const seeds = new Map(config.tenants.map((t) => [canonicalTenant(t.name), seedValues(t.config as Record<string, unknown>)]));
  const tenantConfig = new TenantConfigService({
    store,
    globals: { ...builtInDefaults(), 'compat.managementApi': config.compat.managementApi },
    seeds,
    // one process on the memory store sees every write; several instances on Redis re-read each second
    ttlMs: config.store.kind === 'memory' ? Number.POSITIVE_INFINITY : 1000,
  });
  const dmf = config.dmf.enabled ? dmfLink({ store, tenantConfig }, ctx) : undefined;
  // the activity log, then the rollout engine (built on the runtime below): each commit is told to both
  const commitListeners: CommitListener[] = [activityListener(logger, ctx.metrics)];
  const runtime = new ActorRuntime(store, ACTORS, dmf === undefined ? [] : [dmf.observer], (...commit) => {
    for (const listener of commitListeners) listener(...commit);
  });
  const dispatcher = new EffectDispatcher(store, {
    // one consumer per event loop: each worker thread (src/app/workers.ts) dispatches what its requests commit
    consumer: threadId === 0 ? `${hostname()}-${process.pid}` : `${hostname()}-${process.pid}-${threadId}`,
    tenants: () => tenants.list(),
    handlers: effectHandlers({ store, runtime, dmf: dmf?.outbound, log: logger }),
    log: logger,
    onSettleTimeout: () => ctx.metrics.settleTimedOut(),
  });
  const rolloutEngine = new RolloutEngine({ store, runtime, tenantConfig, log: logger, quotas: config.quotas });
  commitListeners.push((_tenant, changes) => rolloutEngine.noticed(changes));
  const hashPool = createHashPool();
  const auth = createAuth(config, () => tenants.accounts(), () => Date.now());
  return {
    ctx,
    store,
    limits: config.limits,
    quotas: config.quotas,
    tenants,
    runtime,
    dispatcher,
    rolloutEngine,
    tenantConfig,
    artifacts: new ArtifactStorage({ dataDir: join(config.dataDir), hashPool, hotCacheBytes: config.artifacts.hotCacheBytes }),
    events: new EventHub(store, { log: logger }),
    dmf,
    auth,
    mgmtAuth: (permission) => requiring(auth.mgmtAuth(permission), permission),
    now: () => Date.now(),
    close: () => hashPool.close(),
  };
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
