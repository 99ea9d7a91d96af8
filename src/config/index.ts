export { loadConfig, parseConfig, ConfigError } from './load.js';
export type { Config, ConfigInput, TenantConfig } from './schema.js';
export { hashPassword, hashPasswordAsync, verifyPassword, verifyPasswordAsync, isPasswordHash } from './password.js';
export { expandPermissions, isPermission } from './permissions.js';
