export { loadConfig, parseConfig, parseYaml, ConfigError, type LoadOptions } from './load.js';
export { configSchema, type Config, type ConfigInput, type TenantConfig, type UserConfig } from './schema.js';
export { hashPassword, verifyPassword, verifyPasswordAsync, isPasswordHash } from './password.js';
export { PERMISSIONS, ALL, isPermission, expandPermissions } from './permissions.js';
