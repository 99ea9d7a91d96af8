/**
 * The modules of a distribution set as devices see them (DDI deployment chunks, DMF softwareModules):
 * each module with its type's key, its artifacts and its target-visible metadata.
 * @see reference/hawkbit-api.md §1.4 (chunks), §9 (DOWNLOAD_AND_INSTALL)
 */
import {
  ARTIFACT, DS, SM, SM_TYPE,
  type ArtifactRecord, type DistributionSetRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord,
} from '../domain/repository.js';
import type { Store, Stored } from '../store/port.js';

/** Enough artifacts per module for any quota (maxArtifactsPerSoftwareModule defaults to 50). */
const MAX_ARTIFACTS = 10_000;

/** The reads that give a set's modules and artifacts. */
type ModuleReads = Pick<Store, 'get' | 'getMany' | 'members'>;

/** The artifacts of modules, each module's list in id order. */
export async function moduleArtifacts(
  store: ModuleReads, tenant: string, moduleIds: readonly number[],
): Promise<Map<number, ArtifactRecord[]>> {
  const pages = await Promise.all(moduleIds.map((m) => store.members(tenant, ARTIFACT, 'module', String(m), { offset: 0, limit: MAX_ARTIFACTS })));
  const out = new Map<number, ArtifactRecord[]>();
  await Promise.all(moduleIds.map(async (m, i) => {
    const found = await store.getMany<ArtifactRecord>(tenant, ARTIFACT, pages[i]?.ids ?? []);
    out.set(m, found.filter((a): a is Stored<ArtifactRecord> => a !== undefined).map((a) => a.value).sort((x, y) => x.id - y.id));
  }));
  return out;
}

/** One module of a set as devices see it (DDI chunks, DMF softwareModules). */
export interface DeviceModule {
  readonly module: SoftwareModuleRecord;
  /** The module type's key ('' when the type is gone). */
  readonly typeKey: string;
  readonly artifacts: readonly ArtifactRecord[];
  /** Only the entries marked targetVisible. */
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
}

/** The modules of a distribution set with their types, artifacts and target-visible metadata; [] when the set is gone. */
export async function deviceModules(store: ModuleReads, tenant: string, dsId: number): Promise<DeviceModule[]> {
  const ds = (await store.get<DistributionSetRecord>(tenant, DS, dsId))?.value;
  if (ds === undefined) return [];
  const modules = (await store.getMany<SoftwareModuleRecord>(tenant, SM, ds.modules))
    .filter((m): m is Stored<SoftwareModuleRecord> => m !== undefined)
    .map((m) => m.value);
  const typeIds = [...new Set(modules.map((m) => m.type))];
  const types = new Map((await store.getMany<SoftwareModuleTypeRecord>(tenant, SM_TYPE, typeIds))
    .filter((t) => t !== undefined)
    .map((t) => [t.id, t.value]));
  const artifacts = await moduleArtifacts(store, tenant, modules.map((m) => m.id));
  return modules.map((m) => ({
    module: m,
    typeKey: types.get(m.type)?.key ?? '',
    artifacts: artifacts.get(m.id) ?? [],
    metadata: Object.entries(m.metadata).filter(([, v]) => v.targetVisible).map(([key, v]) => ({ key, value: v.value })),
  }));
}
