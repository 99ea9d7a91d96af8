import type { EffectDispatcher } from '../actors/dispatcher.js';
import type { ActorEditor } from '../actors/roles.js';
import type { ModuleContext } from '../module.js';
import type { ArtifactStorage } from '../artifacts/index.js';
import type { Quotas } from '../domain/quotas.js';
import type { Store } from '../store/port.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';
import type { Tenants } from '../tenancy/registry.js';

/** What the DDI handlers use (the composition root passes the shared services). */
export interface DdiDeps {
  readonly ctx: Pick<ModuleContext, 'config' | 'logger' | 'metrics'>;
  readonly store: Store;
  readonly runtime: ActorEditor;
  /** A request waits for the effects it committed (a device's feedback reaches its rollout before the answer). */
  readonly dispatcher: Pick<EffectDispatcher, 'settle'>;
  readonly tenantConfig: Pick<TenantConfigService, 'view' | 'cachedView'>;
  readonly artifacts: Pick<ArtifactStorage, 'openHot' | 'storedAs' | 'hotAt'>;
  readonly quotas: Pick<Quotas, 'maxActionsPerTarget' | 'maxStatusEntriesPerAction' | 'maxAttributeEntriesPerTarget' | 'maxMessagesPerActionStatus'>;
  /** The tenants there are (config.yaml's and runtime ones): requests for others are refused. */
  readonly tenants: Pick<Tenants, 'has'>;
  now(): number;
}
