import type { KindSchema } from '../domain/record-schema.js';

/**
 * The tenants created at runtime (POST /rest/v1/system/admin/tenants), beside config.yaml's: one record
 * in a store scope of no tenant, so every process and worker on the same store sees the same list.
 * The scope's name is no valid tenant name (config.yaml and the API allow A-Z 0-9 _ -), so no tenant's
 * keys are these. One record keeps the list small to read and cache: a process re-reads it only when a
 * write invalidated it (Redis client-side caching), so listing tenants costs no command while nothing changes.
 */
export const SYSTEM_SCOPE = '~system';
export const TENANT_DIRECTORY = 'tenantdirectory';
export const DIRECTORY_ID = 1;

/** A Management user of a runtime tenant: the fields of a config.yaml user (the password an scrypt hash). */
export interface TenantUser {
  readonly username: string;
  readonly password: string;
  readonly permissions: readonly string[];
}

export interface RuntimeTenant {
  /** Canonical (upper-case). */
  readonly name: string;
  readonly createdAt: number;
  readonly createdBy: string;
  readonly users: readonly TenantUser[];
  /**
   * Set by a deletion before it drops the tenant's data and removes the entry: the tenant is gone
   * for every reader from then on, its name stays taken, and a second DELETE finishes a deletion cut short.
   */
  readonly deleting?: true;
}

export interface TenantDirectoryRecord {
  readonly tenants: readonly RuntimeTenant[];
}

export const tenantDirectorySchema: KindSchema<TenantDirectoryRecord> = { indexes: () => ({}) };
