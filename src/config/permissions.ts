/**
 * Management permission names a user may hold in config.yaml.
 * The union of the spec's names (section 5: *_REPOSITORY, *_TARGET, ...) and hawkBit's finer ones
 * (reference section 11), so handlers can ask for either. `ALL` grants every one of them.
 * @see spec/update-rollout-service.md section 5, reference/hawkbit-api.md section 11
 */
const CRUD = ['CREATE', 'READ', 'UPDATE', 'DELETE'] as const;
const ENTITIES = [
  'TARGET',
  'TARGET_TYPE',
  'REPOSITORY',
  'SOFTWARE_MODULE',
  'SOFTWARE_MODULE_TYPE',
  'DISTRIBUTION_SET',
  'DISTRIBUTION_SET_TYPE',
  'AUTO_ASSIGNMENT',
  'ROLLOUT',
  'TENANT_CONFIGURATION',
] as const;

export const PERMISSIONS: readonly string[] = Object.freeze([
  ...ENTITIES.flatMap((entity) => CRUD.map((op) => `${op}_${entity}`)),
  // the spec's coarse name for changing the tenant configuration
  'TENANT_CONFIGURATION',
  'READ_TARGET_SECURITY_TOKEN',
  'READ_GATEWAY_SECURITY_TOKEN',
  'READ_SOFTWARE_MODULE_ARTIFACT',
  'DOWNLOAD_REPOSITORY_ARTIFACT',
  'APPROVE_ROLLOUT',
  'HANDLE_ROLLOUT',
  'APPROVE_AUTO_ASSIGNMENT',
  'HANDLE_AUTO_ASSIGNMENT',
  'SYSTEM_ADMIN',
]);

/** Grants every permission above. */
export const ALL = 'ALL';

const KNOWN = new Set<string>([...PERMISSIONS, ALL]);

export function isPermission(name: string): boolean {
  return KNOWN.has(name);
}

/** The set a principal carries: `ALL` expands to every name (and keeps `ALL` itself). */
export function expandPermissions(names: readonly string[]): ReadonlySet<string> {
  return names.includes(ALL) ? new Set(KNOWN) : new Set(names);
}
