import type { Audit } from './audit.js';
import type { KindSchema } from './record-schema.js';

/**
 * Repository entities: software module types, software modules, artifacts, distribution set types,
 * distribution sets, and the two tag kinds. Soft-deleted entities keep their record with
 * `deleted: true` while something still refers to them.
 * @see spec 2.2, 2.5-2.7; reference §3.9-3.13
 */
export interface SoftwareModuleTypeRecord extends Audit {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
  readonly maxAssignments: number;
  /** Artifacts a module of this type needs to be complete (hawkBit 1.x); absent in records written before: 0. */
  readonly minArtifacts?: number;
  readonly deleted: boolean;
}

export interface SoftwareModuleRecord extends Audit {
  readonly id: number;
  readonly name: string;
  readonly version: string;
  readonly type: number;
  readonly description: string | null;
  readonly vendor: string | null;
  readonly encrypted: boolean;
  readonly locked: boolean;
  readonly deleted: boolean;
  /** key -> { value, targetVisible } */
  readonly metadata: Readonly<Record<string, { readonly value: string; readonly targetVisible: boolean }>>;
}

export interface Hashes {
  readonly md5: string;
  readonly sha1: string;
  readonly sha256: string;
}

export interface ArtifactRecord extends Audit {
  readonly id: number;
  readonly module: number;
  readonly filename: string;
  readonly size: number;
  readonly hashes: Hashes;
}

export interface DistributionSetTypeRecord extends Audit {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
  readonly mandatory: readonly number[];
  readonly optional: readonly number[];
  readonly deleted: boolean;
}

export interface DistributionSetRecord extends Audit {
  readonly id: number;
  readonly name: string;
  readonly version: string;
  readonly description: string | null;
  readonly type: number;
  readonly modules: readonly number[];
  readonly requiredMigrationStep: boolean;
  readonly locked: boolean;
  readonly valid: boolean;
  readonly deleted: boolean;
  readonly tags: readonly number[];
  readonly metadata: Readonly<Record<string, string>>;
}

export interface TagRecord extends Audit {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
}

/** A module's `complete` (hawkBit 1.x): it holds at least its type's `minArtifacts` artifacts. */
export function isModuleComplete(type: Pick<SoftwareModuleTypeRecord, 'minArtifacts'> | undefined, artifacts: number): boolean {
  return artifacts >= (type?.minArtifacts ?? 0);
}

/** Whether a module's completeness depends on its artifacts at all (the count is read only then). */
export function needsArtifacts(type: Pick<SoftwareModuleTypeRecord, 'minArtifacts'> | undefined): boolean {
  return (type?.minArtifacts ?? 0) > 0;
}

/** A module of a set as completeness sees it: its type, and whether it is complete itself. */
export interface ModuleCompleteness {
  readonly type: number;
  readonly complete: boolean;
}

/**
 * Spec 2.7 `complete`: the set holds a module of every mandatory module type of its type, and (hawkBit
 * 1.x) every module of it is complete.
 */
export function isComplete(type: DistributionSetTypeRecord | undefined, modules: readonly ModuleCompleteness[]): boolean {
  return incompleteness(type, modules) === undefined;
}

/** Why a set is not complete, for the DS_INCOMPLETE message (undefined: it is complete). */
export function incompleteness(type: DistributionSetTypeRecord | undefined, modules: readonly ModuleCompleteness[]): string | undefined {
  if (type === undefined) return 'its type does not exist';
  if (!type.mandatory.every((t) => modules.some((m) => m.type === t))) return 'a mandatory software module type has no module';
  if (!modules.every((m) => m.complete)) return "a software module has fewer artifacts than its type's minArtifacts";
  return undefined;
}

export const SM_TYPE = 'smtype';
export const SM = 'sm';
export const ARTIFACT = 'artifact';
export const DS_TYPE = 'dstype';
export const DS = 'ds';
export const TARGET_TAG = 'targettag';
export const DS_TAG = 'dstag';

/**
 * The keys of hawkBit's standard repository setup (Constants.java): module types `os` and
 * `application`, set types `os` (OS only), `app` (app(s) only) and `os_app` (OS with app(s)), the
 * tenant's default set type until `default.ds.type` names another.
 */
export const STANDARD_TYPE_KEYS = { smOs: 'os', smApp: 'application', dsOs: 'os', dsApp: 'app', dsOsApp: 'os_app' } as const;

const lower = (s: string): string => s.toLowerCase();

export const smTypeSchema: KindSchema<SoftwareModuleTypeRecord, { unique: 'key' | 'name'; multi: never }> = {
  indexes: (t) => ({ unique: t.deleted ? [] : [['key', lower(t.key)], ['name', lower(t.name)]] }),
};
export const smSchema: KindSchema<SoftwareModuleRecord, { unique: 'nameVersionType'; multi: 'type' }> = {
  indexes: (m) => ({
    unique: m.deleted ? [] : [['nameVersionType', `${lower(m.name)}\u0000${lower(m.version)}\u0000${m.type}`]],
    multi: [['type', String(m.type)]],
  }),
};
export const artifactSchema: KindSchema<ArtifactRecord, { unique: 'moduleFilename'; multi: 'module' | 'sha1' }> = {
  indexes: (a) => ({
    unique: [['moduleFilename', `${a.module}\u0000${a.filename}`]],
    multi: [['module', String(a.module)], ['sha1', a.hashes.sha1]],
  }),
};
export const dsTypeSchema: KindSchema<DistributionSetTypeRecord, { unique: 'key' | 'name'; multi: never }> = {
  indexes: (t) => ({ unique: t.deleted ? [] : [['key', lower(t.key)], ['name', lower(t.name)]] }),
};
export const dsSchema: KindSchema<DistributionSetRecord, { unique: 'nameVersion'; multi: 'type' | 'module' | 'tag' }> = {
  indexes: (d) => ({
    unique: d.deleted ? [] : [['nameVersion', `${lower(d.name)}\u0000${lower(d.version)}`]],
    multi: [['type', String(d.type)], ...d.modules.map((m) => ['module', String(m)] as const), ...d.tags.map((t) => ['tag', String(t)] as const)],
  }),
};
export const tagSchema: KindSchema<TagRecord, { unique: 'name'; multi: never }> = {
  indexes: (t) => ({ unique: [['name', lower(t.name)]] }),
};
