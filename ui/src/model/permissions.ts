/**
 * The permissions the console's buttons need, as the server checks them (src/mgmt/kit/access.ts): each
 * list is "any of" (the spec's coarse name or hawkBit's finer one).
 */
export const PERM = {
  createModule: ['CREATE_REPOSITORY', 'CREATE_SOFTWARE_MODULE'],
  deleteModule: ['DELETE_REPOSITORY', 'DELETE_SOFTWARE_MODULE'],
  updateModule: ['UPDATE_REPOSITORY', 'UPDATE_SOFTWARE_MODULE'],
  createSet: ['CREATE_REPOSITORY', 'CREATE_DISTRIBUTION_SET'],
  updateSet: ['UPDATE_REPOSITORY', 'UPDATE_DISTRIBUTION_SET'],
  deleteSet: ['DELETE_REPOSITORY', 'DELETE_DISTRIBUTION_SET'],
  readModules: ['READ_REPOSITORY', 'READ_SOFTWARE_MODULE'],
  createModuleType: ['CREATE_REPOSITORY', 'CREATE_SOFTWARE_MODULE_TYPE'],
  createSetType: ['CREATE_REPOSITORY', 'CREATE_DISTRIBUTION_SET_TYPE'],
  writeConfig: ['TENANT_CONFIGURATION'],
} as const;
