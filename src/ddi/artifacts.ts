/**
 * Artifacts on the device side: the list of a module's artifacts, the download (GET and HEAD, with
 * Range / If-Range / If-Match through `artifactReply`) and the `.MD5SUM` file. A device may fetch
 * only modules of its active, non-canceling actions; the list also allows its installed DS.
 * A complete (non-Range) GET of a file adds a DOWNLOAD status entry naming the request path (as
 * hawkBit's `getRequestURI()`: no scheme, host or query) to the matching action, while the action's
 * status-entry quota has room (a download is never refused for it), unless the action's newest entry is
 * already the DOWNLOAD of that path (`repeatsDownload`: a download repeated back to back adds nothing).
 * The checks read through the store's cached reads, as the poll and deploymentBase do (coherent: this
 * process's writes at once, other processes' when Redis's invalidation arrives): a repeated download
 * sends no command to Redis.
 * Anonymous downloads need the tenant's `anonymous.download.enabled` besides the system switch.
 * The bytes come from memory while the binary is hot (ArtifactStorage.openHot), or, with
 * `artifacts.accelRedirect` and a request through a trusted proxy, from nginx (X-Accel-Redirect); every
 * check above runs first either way.
 * @see reference/hawkbit-api.md §1.1 rows 2-4 and notes; spec 5 (anonymous access)
 */
import type { DdiDeps } from './deps.js';
import { artifactReply, md5sumReply } from '../artifacts/index.js';
import { repeatsDownload, type ActionRecord } from '../domain/action.js';
import { highestPriority } from '../device/active-actions.js';
import { moduleArtifacts } from '../device/modules.js';
import { entryQuotaLeft, sendToAction } from '../device/reports.js';
import { AppError, notFound } from '../domain/errors.js';
import { ARTIFACT, DS, type ArtifactRecord, type DistributionSetRecord } from '../domain/repository.js';
import type { TargetRecord } from '../domain/target.js';
import type { Handler, Reply } from '../http/types.js';
import { activeActionsOf } from '../store/named-reads.js';
import type { CachedReads, Stored } from '../store/port.js';
import { device, requireTarget, type Device } from './device.js';
import { artifactJson } from './deployment-json.js';
import { idParam } from './params.js';

const MD5SUM = '.MD5SUM';

/** Modules the target may fetch, each with the active actions that deliver it. */
async function reachableModules(
  reads: CachedReads, d: Device, target: TargetRecord, withInstalled: boolean,
): Promise<Map<number, Stored<ActionRecord>[]>> {
  const actions = (await activeActionsOf(reads, d.tenant, target.id)).filter((a) => a.value.status !== 'canceling');
  const dsIds = [...new Set(actions.map((a) => a.value.ds))];
  if (withInstalled && target.installedDs !== null && !dsIds.includes(target.installedDs)) dsIds.push(target.installedDs);
  const sets = await reads.getMany<DistributionSetRecord>(d.tenant, DS, dsIds);
  const out = new Map<number, Stored<ActionRecord>[]>();
  for (const set of sets) {
    if (set === undefined) continue;
    const delivering = actions.filter((a) => a.value.ds === set.id);
    for (const m of set.value.modules) out.set(m, [...(out.get(m) ?? []), ...delivering]);
  }
  return out;
}

export function artifactListHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    const target = requireTarget(d);
    const moduleId = idParam(req, 'softwareModuleId');
    const reachable = await reachableModules(services.store.cached, d, target, true);
    if (!reachable.has(moduleId)) throw notFound('SoftwareModule', moduleId);
    const artifacts = (await moduleArtifacts(services.store.cached, d.tenant, [moduleId])).get(moduleId) ?? [];
    // hawkBit's ETag filter excludes .../artifacts/** (the list included): the route sets etag: false
    return { status: 200, json: artifacts.map((a) => artifactJson(req, d, a)) };
  };
}

async function findArtifact(reads: CachedReads, tenant: string, moduleId: number, filename: string): Promise<ArtifactRecord | undefined> {
  const id = await reads.lookup(tenant, ARTIFACT, 'moduleFilename', `${moduleId}\u0000${filename}`);
  return id === undefined ? undefined : (await reads.get<ArtifactRecord>(tenant, ARTIFACT, id))?.value;
}

export function artifactDownloadHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    if (d.principal.mode === 'anonymous' && !d.config.bool('anonymous.download.enabled')) {
      throw new AppError('UNAUTHORIZED', 'Anonymous artifact download is not enabled for this tenant; authenticate the target.');
    }
    const target = requireTarget(d);
    const moduleId = idParam(req, 'softwareModuleId');
    const fileName = req.params['fileName'] ?? '';
    const reads = services.store.cached;
    const reachable = await reachableModules(reads, d, target, false);
    const delivering = reachable.get(moduleId);
    if (delivering === undefined) throw notFound('SoftwareModule', moduleId);
    // an artifact really named "x.MD5SUM" wins over the checksum file of "x"
    let artifact = await findArtifact(reads, d.tenant, moduleId, fileName);
    let checksum = false;
    if (artifact === undefined && fileName.endsWith(MD5SUM)) {
      artifact = await findArtifact(reads, d.tenant, moduleId, fileName.slice(0, -MD5SUM.length));
      checksum = true;
    }
    if (artifact === undefined) throw notFound('Artifact', fileName);
    let reply: Reply;
    if (checksum) {
      reply = md5sumReply(artifact.hashes.md5, artifact.filename);
    } else {
      const binary = await services.artifacts.openHot(d.tenant, artifact.hashes.sha1);
      const accel = services.ctx.config.artifacts.accelRedirect;
      reply = artifactReply(req, { ...binary, sha1: artifact.hashes.sha1, md5: artifact.hashes.md5, filename: artifact.filename }, {
        accelRedirect: accel.enabled && req.fromTrustedProxy ? accel.location : undefined,
      });
    }
    if (req.method === 'GET' && reply.status === 200) {
      const action = highestPriority(delivering);
      // the action's own guard, checked here first so a repeated download costs no actor round
      if (action !== undefined && !repeatsDownload(action.value, req.path) && entryQuotaLeft(services, action.value)) {
        await sendToAction(services, d.tenant, action, { type: 'device.downloading', at: services.now(), uri: req.path });
      }
    }
    return reply;
  };
}
