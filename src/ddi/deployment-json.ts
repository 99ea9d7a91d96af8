/**
 * `DdiDeploymentBase` (deploymentBase, installedBase) and `DdiConfirmationBaseAction`
 * (confirmationBase/{actionId}): `{id, deployment|confirmation, actionHistory?}`, property order as
 * hawkBit writes it, null fields omitted.
 * @see reference/hawkbit-api.md §1.4, §2
 */
import type { Services } from '../app/services.js';
import { ACTION_STATUS, SERVER_MESSAGE_PREFIX, type ActionRecord, type ActionStatusRecord } from '../domain/action.js';
import type { WindowState } from '../domain/maintenance.js';
import {
  ARTIFACT, DS, SM, SM_TYPE,
  type ArtifactRecord, type DistributionSetRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord,
} from '../domain/repository.js';
import type { Request } from '../http/types.js';
import type { Store, Stored } from '../store/port.js';
import type { Device } from './device.js';
import { artifactLinks, type Href } from './links.js';

/** hawkBit's MAX_ACTION_HISTORY_MSG_COUNT. */
export const MAX_HISTORY = 100;
/** Enough artifacts per module for any quota (maxArtifactsPerSoftwareModule defaults to 50). */
const MAX_ARTIFACTS = 10_000;

type Handling = 'skip' | 'attempt' | 'forced';

export interface ArtifactJson {
  readonly filename: string;
  readonly hashes: { readonly sha1: string; readonly md5: string; readonly sha256?: string };
  readonly size: number;
  readonly _links: Record<string, Href>;
}

export function artifactJson(req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId'>, a: ArtifactRecord): ArtifactJson {
  const hashes = a.hashes.sha256
    ? { sha1: a.hashes.sha1, md5: a.hashes.md5, sha256: a.hashes.sha256 }
    : { sha1: a.hashes.sha1, md5: a.hashes.md5 };
  return { filename: a.filename, hashes, size: a.size, _links: artifactLinks(req, d, a.module, a.filename) };
}

/** `download`: forced for download-only, forced, and time-forced past its force time; else attempt. */
export function downloadHandling(a: ActionRecord, now: number): Handling {
  return a.actionType === 'downloadonly' || a.actionType === 'forced' || (a.actionType === 'timeforced' && now >= a.forceTime) ? 'forced' : 'attempt';
}

/** `update`: skip for download-only and outside a maintenance window; else as download. */
export function updateHandling(a: ActionRecord, state: WindowState | undefined, now: number): Handling {
  if (a.actionType === 'downloadonly') return 'skip';
  if (state !== undefined && !state.available) return 'skip';
  return downloadHandling(a, now);
}

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

/** Chunk `part`: the module type key, with hawkBit's legacy names for two keys. */
export function partOf(typeKey: string): string {
  return typeKey === 'application' ? 'bApp' : typeKey === 'runtime' ? 'jvm' : typeKey;
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

async function chunks(services: Services, req: Request, d: Device, dsId: number): Promise<object[]> {
  // repository records through the poll cache (kept coherent by the store): every device of a rollout reads the same set
  return (await deviceModules(services.ctx.store.cached, d.tenant, dsId)).map(({ module: m, typeKey, artifacts, metadata }) => ({
    part: partOf(typeKey),
    version: m.version,
    name: m.name,
    ...(m.encrypted ? { encrypted: true } : {}),
    artifacts: artifacts.map((a) => artifactJson(req, d, a)),
    ...(metadata.length > 0 ? { metadata } : {}),
  }));
}

/**
 * The action history: `status` in upper case, the device's messages newest first (server messages
 * left out), at most `requested` of them (0: none; below 0 or 100 and more: 100). Omitted when empty.
 */
async function actionHistory(services: Services, tenant: string, action: ActionRecord, requested: number): Promise<object | undefined> {
  if (requested === 0) return undefined;
  const limit = requested < 0 || requested >= MAX_HISTORY ? MAX_HISTORY : requested;
  const store = services.ctx.store;
  const page = await store.members(tenant, ACTION_STATUS, 'action', String(action.id), { offset: 0, limit: 10_000, desc: true });
  const entries = (await store.getMany<ActionStatusRecord>(tenant, ACTION_STATUS, page.ids))
    .filter((e): e is Stored<ActionStatusRecord> => e !== undefined)
    .map((e) => e.value);
  entries.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
  const messages: string[] = [];
  for (const e of entries) {
    for (const m of e.messages) {
      if (m.startsWith(SERVER_MESSAGE_PREFIX)) continue;
      messages.push(m);
      if (messages.length >= limit) break;
    }
    if (messages.length >= limit) break;
  }
  return messages.length === 0 ? undefined : { status: action.status.toUpperCase(), messages };
}

export interface RenderOptions {
  readonly key: 'deployment' | 'confirmation';
  readonly history: number;
  readonly state: WindowState | undefined;
  readonly now: number;
}

export async function deploymentJson(
  services: Services, req: Request, d: Device, action: ActionRecord, opts: RenderOptions,
): Promise<object> {
  const [chunkList, history] = await Promise.all([
    chunks(services, req, d, action.ds),
    actionHistory(services, d.tenant, action, opts.history),
  ]);
  const body = {
    download: downloadHandling(action, opts.now),
    update: updateHandling(action, opts.state, opts.now),
    ...(opts.state === undefined ? {} : { maintenanceWindow: opts.state.available ? 'available' : 'unavailable' }),
    chunks: chunkList,
  };
  return { id: String(action.id), [opts.key]: body, ...(history === undefined ? {} : { actionHistory: history }) };
}
