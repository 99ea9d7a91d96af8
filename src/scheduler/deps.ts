import type { Logger } from 'pino';
import type { ActorComposer } from '../actors/roles.js';
import type { ModuleContext } from '../module.js';
import type { Quotas } from '../domain/quotas.js';
import type { Store } from '../store/port.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';
import type { Tenants } from '../tenancy/registry.js';

/** What the scheduler's tasks use (the composition root passes the shared services). */
export interface SchedulerDeps {
  readonly ctx: Pick<ModuleContext, 'config' | 'metrics'> & { readonly logger: Pick<Logger, 'info' | 'warn' | 'error'> };
  /** The open store. */
  readonly store: Store;
  readonly runtime: ActorComposer;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
  readonly quotas: Pick<Quotas, 'maxActionsPerTarget' | 'maxRolloutGroupsPerRollout'>;
  /** The tenants there are, asked on every pass (a runtime tenant's loops start and stop with it). */
  readonly tenants: Pick<Tenants, 'list'>;
  now(): number;
}
