/**
 * `DdiDeploymentBase` (deploymentBase, installedBase) and `DdiConfirmationBaseAction`
 * (confirmationBase/{actionId}): `{id, deployment|confirmation, actionHistory?}`, property order as
 * hawkBit writes it, null fields omitted.
 * @see reference/hawkbit-api.md §1.4, §2
 */
import type { DdiDeps } from './deps.js';
import { ACTION_STATUS, SERVER_MESSAGE_PREFIX, type ActionRecord, type ActionStatusRecord } from '../domain/action.js';
import type { WindowState } from '../domain/maintenance.js';
import type { ArtifactRecord } from '../domain/repository.js';
import type { DeviceModule } from '../device/modules.js';
import type { Request } from '../http/types.js';
import type { CachedReads, Stored } from '../store/port.js';
import type { Device } from './device.js';
import { artifactLinks, type Href } from './links.js';
import { SetModulesMemo } from './set-modules-memo.js';

/** hawkBit's MAX_ACTION_HISTORY_MSG_COUNT. */
export const MAX_HISTORY = 100;

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

/** Chunk `part`: the module type key, with hawkBit's legacy names for two keys. */
export function partOf(typeKey: string): string {
  return typeKey === 'application' ? 'bApp' : typeKey === 'runtime' ? 'jvm' : typeKey;
}

// one per store's cached reads (a process may run several servers: the tests)
const memos = new WeakMap<CachedReads, SetModulesMemo>();

/**
 * The modules of sets as devices see them, remembered per set while the records they were made from
 * stay (set-modules-memo.ts): every device of a rollout fetches the same set.
 */
export function setModulesOf(reads: CachedReads): SetModulesMemo {
  let memo = memos.get(reads);
  if (memo === undefined) memos.set(reads, (memo = new SetModulesMemo(reads)));
  return memo;
}

function chunks(req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId'>, modules: readonly DeviceModule[]): object[] {
  return modules.map(({ module: m, typeKey, artifacts, metadata }) => ({
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
async function actionHistory(services: DdiDeps, tenant: string, action: ActionRecord, requested: number): Promise<object | undefined> {
  if (requested === 0) return undefined;
  const limit = requested < 0 || requested >= MAX_HISTORY ? MAX_HISTORY : requested;
  const store = services.store;
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
  services: DdiDeps, req: Request, d: Device, action: ActionRecord, opts: RenderOptions,
): Promise<object> {
  // repository records through the poll cache (kept coherent by the store), the set's modules remembered
  const [set, history] = await Promise.all([
    setModulesOf(services.store.cached).get(d.tenant, action.ds),
    actionHistory(services, d.tenant, action, opts.history),
  ]);
  return deploymentValue(req, d, action, set.modules, opts, history);
}

/** The reply value of `deploymentJson` from the set's modules and the action history, if any. */
export function deploymentValue(
  req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId'>, action: ActionRecord, modules: readonly DeviceModule[],
  opts: Omit<RenderOptions, 'history'>, history: object | undefined,
): object {
  const body = {
    download: downloadHandling(action, opts.now),
    update: updateHandling(action, opts.state, opts.now),
    ...(opts.state === undefined ? {} : { maintenanceWindow: opts.state.available ? 'available' : 'unavailable' }),
    chunks: chunks(req, d, modules),
  };
  return { id: String(action.id), [opts.key]: body, ...(history === undefined ? {} : { actionHistory: history }) };
}
