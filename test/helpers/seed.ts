/**
 * Seeds repository and target records straight into a running app's store, for tests whose subject
 * is something else (DDI, deployments) and which must not depend on the Management endpoints that
 * create these. Records are the same domain records the endpoints write.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { ACTORS } from '../../src/actors/kinds.js';
import { created } from '../../src/domain/audit.js';
import {
  ARTIFACT, DS, DS_TYPE, SM, SM_TYPE,
  type ArtifactRecord, type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord,
} from '../../src/domain/repository.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import type { App } from './app.js';

const AUDIT = created('seed', 1_700_000_000_000);

async function put<T extends { id: number }>(app: App, kind: string, build: (id: number) => T): Promise<T> {
  const id = await app.store.nextIds(app.tenant, kind, 1);
  const record = build(id);
  const result = await app.store.commit(app.tenant, { writes: [{ kind, id, expect: 0, after: record }] });
  if (!result.ok) throw new Error(`seeding ${kind} failed: ${JSON.stringify(result)}`);
  return record;
}

export interface SeededArtifact {
  readonly record: ArtifactRecord;
  readonly content: Buffer;
}

export interface SeededDs {
  readonly ds: DistributionSetRecord;
  readonly module: SoftwareModuleRecord;
  readonly smType: SoftwareModuleTypeRecord;
  readonly dsType: DistributionSetTypeRecord;
  readonly artifacts: readonly SeededArtifact[];
}

/**
 * A complete distribution set: an SM type `os`, a module with the given artifacts (random content
 * unless given; the binary is written where ArtifactStorage keeps it), a DS type requiring `os`.
 */
export async function seedDistributionSet(app: App, opts: {
  name?: string; version?: string; artifacts?: readonly { filename: string; content?: Buffer }[];
  metadata?: SoftwareModuleRecord['metadata']; encrypted?: boolean; requiredMigrationStep?: boolean; smTypeKey?: string;
} = {}): Promise<SeededDs> {
  const tag = randomBytes(4).toString('hex');
  const smType = await put<SoftwareModuleTypeRecord>(app, SM_TYPE, (id) => ({
    id, key: opts.smTypeKey ?? `os-${tag}`, name: `OS ${tag}`, description: null, colour: null, maxAssignments: 1, deleted: false, ...AUDIT,
  }));
  const module = await put<SoftwareModuleRecord>(app, SM, (id) => ({
    id, name: `firmware-${tag}`, version: '1.0.0', type: smType.id, description: null, vendor: 'ACME',
    encrypted: opts.encrypted ?? false, locked: true, deleted: false, metadata: opts.metadata ?? {}, ...AUDIT,
  }));
  const artifacts: SeededArtifact[] = [];
  for (const a of opts.artifacts ?? [{ filename: 'image.bin' }]) {
    const content = a.content ?? randomBytes(64 * 1024);
    const hashes = {
      md5: createHash('md5').update(content).digest('hex'),
      sha1: createHash('sha1').update(content).digest('hex'),
      sha256: createHash('sha256').update(content).digest('hex'),
    };
    const dir = join(app.server.config.dataDir, 'artifacts', app.tenant, hashes.sha1.slice(0, 2));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, hashes.sha1), content);
    const record = await put<ArtifactRecord>(app, ARTIFACT, (id) => ({
      id, module: module.id, filename: a.filename, size: content.length, hashes, ...AUDIT,
    }));
    artifacts.push({ record, content });
  }
  const dsType = await put<DistributionSetTypeRecord>(app, DS_TYPE, (id) => ({
    id, key: `ds-${tag}`, name: `DS type ${tag}`, description: null, colour: null, mandatory: [smType.id], optional: [], deleted: false, ...AUDIT,
  }));
  const ds = await put<DistributionSetRecord>(app, DS, (id) => ({
    id, name: opts.name ?? `release-${tag}`, version: opts.version ?? '1.0', description: null, type: dsType.id, modules: [module.id],
    requiredMigrationStep: opts.requiredMigrationStep ?? false, locked: false, valid: true, deleted: false,
    tags: [], metadata: {}, ...AUDIT,
  }));
  return { ds, module, smType, dsType, artifacts };
}

/** A target as the Management API creates it (updateStatus unknown unless given). */
export async function seedTarget(app: App, controllerId: string, overrides: Partial<TargetRecord> = {}): Promise<TargetRecord> {
  const id = await app.store.nextIds(app.tenant, TARGET, 1);
  const record: TargetRecord = {
    id, controllerId, name: controllerId, description: null, securityToken: randomBytes(16).toString('hex'), address: null,
    updateStatus: 'unknown', requestAttributes: true, targetType: null, assignedDs: null, installedDs: null, installedAt: null,
    installedAction: null, tags: [], attributes: {}, metadata: {}, autoConfirm: null, group: null, ...AUDIT, ...overrides,
  };
  const result = await new ActorRuntime(app.store, ACTORS).create(app.tenant, TARGET, record);
  if (!result.ok) throw new Error(`seeding target ${controllerId} failed: ${result.reason}`);
  return record;
}
