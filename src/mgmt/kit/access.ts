import type { PermissionRequirement } from '../../http/auth-basic.js';

/**
 * Who may do what, for every Management resource. The spec names coarse permissions
 * (READ_TARGET, CREATE_REPOSITORY, ...); newer hawkBit adds finer ones per entity
 * (READ_TARGET_TYPE, READ_SOFTWARE_MODULE, ...): where it does, either one suffices.
 * @see spec 4.3, 4.4, 5; reference §11
 */
export interface Access {
  readonly read: PermissionRequirement;
  readonly create: PermissionRequirement;
  readonly update: PermissionRequirement;
  readonly delete: PermissionRequirement;
}

/** `<OP>_<name>` for each name: one permission, or any one of several. */
function crud(...names: readonly string[]): Access {
  const of = (op: string): PermissionRequirement =>
    (names.length === 1 ? `${op}_${names[0] ?? ''}` : { anyOf: names.map((n) => `${op}_${n}`) });
  return { read: of('READ'), create: of('CREATE'), update: of('UPDATE'), delete: of('DELETE') };
}

export const ACCESS = {
  /** Targets, their tags, filters and actions. */
  target: crud('TARGET'),
  targetType: crud('TARGET_TYPE', 'TARGET'),
  /** The spec lists the repository permissions for target metadata, hawkBit's code the target ones. */
  targetMetadata: crud('TARGET', 'REPOSITORY'),
  softwareModule: crud('REPOSITORY', 'SOFTWARE_MODULE'),
  softwareModuleType: crud('REPOSITORY', 'SOFTWARE_MODULE_TYPE'),
  /** Distribution sets and their tags. */
  distributionSet: crud('REPOSITORY', 'DISTRIBUTION_SET'),
  distributionSetType: crud('REPOSITORY', 'DISTRIBUTION_SET_TYPE'),
  rollout: crud('ROLLOUT'),
} as const satisfies Record<string, Access>;

/** A target's distribution sets, a set's targets: both sides. */
export const READ_TARGET_AND_REPOSITORY: PermissionRequirement = ['READ_TARGET', 'READ_REPOSITORY'];
/** Assigning a distribution set (manual or auto-assignment). */
export const ASSIGN: PermissionRequirement = ['UPDATE_TARGET', 'READ_REPOSITORY'];
/** Artifact downloads: a repository reader, or hawkBit's dedicated download permissions. */
export const DOWNLOAD: PermissionRequirement = {
  anyOf: ['READ_REPOSITORY', 'DOWNLOAD_REPOSITORY_ARTIFACT', 'READ_SOFTWARE_MODULE_ARTIFACT'],
};
/** Rollouts: start, pause, resume, stop, triggerNextGroup (and `startAt` on create); approve and deny. */
export const HANDLE_ROLLOUT: PermissionRequirement = 'HANDLE_ROLLOUT';
export const APPROVE_ROLLOUT: PermissionRequirement = 'APPROVE_ROLLOUT';
/** A rollout group's targets. */
export const READ_ROLLOUT_TARGETS: PermissionRequirement = ['READ_ROLLOUT', 'READ_TARGET'];
export const CONFIG = {
  read: { anyOf: ['READ_TENANT_CONFIGURATION', 'TENANT_CONFIGURATION'] },
  write: 'TENANT_CONFIGURATION',
} as const satisfies Record<string, PermissionRequirement>;
