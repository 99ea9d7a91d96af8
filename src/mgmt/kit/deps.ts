import type { PermissionRequirement } from '../../http/auth-basic.js';
import type { Authenticator } from '../../http/types.js';
import type { Store } from '../../store/port.js';
import type { TenantConfigService } from '../../tenancy/tenant-config-service.js';

/** Management list paging: `limit` when absent, and its largest value (config.yaml `limits`). */
export interface PageLimits {
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
}

/**
 * What every Management resource uses. A resource declares these plus the few services it needs
 * (`KitDeps & { readonly runtime: ActorSender }`, src/actors/roles.ts); the composition root passes the
 * shared services (src/app/services.ts), which provide them all.
 */
export interface KitDeps {
  /** The open store. */
  readonly store: Store;
  readonly limits: PageLimits;
  /** Tenant settings (polling times for `${OVERDUE_TS}`, confirmation flow, ...). */
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
  /** Management authentication (Basic, Bearer, the session cookie: src/auth) requiring a permission (see kit/access.ts). */
  mgmtAuth(permission?: PermissionRequirement): Authenticator;
  /** Milliseconds since the epoch. */
  now(): number;
}
