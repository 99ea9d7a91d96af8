/** What the console reads of the repository JSON (hawkBit's MgmtSoftwareModule, MgmtDistributionSet, types, artifacts). */
interface Base {
  readonly id: number;
  readonly createdAt?: number;
  readonly createdBy?: string;
  readonly lastModifiedAt?: number;
  readonly lastModifiedBy?: string;
}

export interface SoftwareModule extends Base {
  readonly name: string;
  readonly version: string;
  readonly type?: string;
  readonly typeName?: string;
  readonly vendor?: string;
  readonly description?: string;
  readonly locked?: boolean;
  readonly complete?: boolean;
}

export interface DistributionSet extends Base {
  readonly name: string;
  readonly version: string;
  readonly type?: string;
  readonly typeName?: string;
  readonly description?: string;
  readonly locked?: boolean;
  readonly complete?: boolean;
  readonly valid?: boolean;
  readonly requiredMigrationStep?: boolean;
  readonly modules?: readonly SoftwareModule[];
}

export interface ModuleType extends Base {
  readonly key: string;
  readonly name: string;
  readonly description?: string;
  readonly maxAssignments?: number;
  readonly minArtifacts?: number;
}

export interface SetType extends Base {
  readonly key: string;
  readonly name: string;
  readonly description?: string;
}

export interface Artifact extends Base {
  readonly providedFilename: string;
  readonly size: number;
  readonly hashes: { readonly md5?: string; readonly sha1?: string; readonly sha256?: string };
}

/** `name 1.2.0` */
export function nameVersion(x: { readonly name: string; readonly version: string }): string {
  return `${x.name} ${x.version}`;
}
