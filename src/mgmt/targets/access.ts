import type { PermissionRequirement } from '../../http/auth-basic.js';

/**
 * Permissions of the target-side resources. The spec names the coarse ones (READ_TARGET, ...);
 * newer hawkBit splits target types off (READ_TARGET_TYPE, ...), so either is accepted there.
 * The spec lists READ_REPOSITORY / UPDATE_REPOSITORY for target metadata while hawkBit's code asks
 * for the target permissions: either is accepted. @see spec 4.4, 5; reference §11
 */
export const ACCESS = {
  readTarget: 'READ_TARGET',
  createTarget: 'CREATE_TARGET',
  updateTarget: 'UPDATE_TARGET',
  deleteTarget: 'DELETE_TARGET',
  readTargetAndRepository: ['READ_TARGET', 'READ_REPOSITORY'],
  assignAutoDs: ['UPDATE_TARGET', 'READ_REPOSITORY'],
  readMetadata: { anyOf: ['READ_TARGET', 'READ_REPOSITORY'] },
  writeMetadata: { anyOf: ['UPDATE_TARGET', 'UPDATE_REPOSITORY'] },
  readType: { anyOf: ['READ_TARGET_TYPE', 'READ_TARGET'] },
  createType: { anyOf: ['CREATE_TARGET_TYPE', 'CREATE_TARGET'] },
  updateType: { anyOf: ['UPDATE_TARGET_TYPE', 'UPDATE_TARGET'] },
  deleteType: { anyOf: ['DELETE_TARGET_TYPE', 'DELETE_TARGET'] },
  readConfig: { anyOf: ['READ_TENANT_CONFIGURATION', 'TENANT_CONFIGURATION'] },
  writeConfig: 'TENANT_CONFIGURATION',
} as const satisfies Record<string, PermissionRequirement>;
