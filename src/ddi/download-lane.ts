/**
 * The artifact download's express lane (Route.fileLane, GET and HEAD; after the poll's, poll-lane.ts):
 * a known target that presents its TargetToken (or the tenant's GatewayToken) in the usual spelling and
 * downloads an artifact of a module one of its open actions delivers, while the binary is in memory
 * (the hot cache), is answered from those bytes: 200 (whole), 206 (one range), 304 (If-None-Match names
 * its ETag) or HEAD, with the headers the generic path writes (downloadHeaders), a slice of the one
 * cached Buffer as the body. It reads the four path parameters and the headers once (one pass); the
 * target, its actions, their sets and the artifact come from the cached reads.
 *
 * What it derives for a device and file (the token, whether an action delivers the module, the artifact,
 * the binary and its headers, what the action's last entry is) it keeps in a slot, found by the path's
 * own strings, for as long as the cached reads report no change (CachedReads.changes: a write of this
 * process, or one of a peer's that Redis reported), the tenant's configuration view is the same and
 * the hot cache still holds that binary; otherwise it derives them again. A new token, a canceled or
 * closed action, another assignment, a deleted artifact or another tenant configuration are all such
 * changes, so the lane never answers what the generic path would refuse.
 *
 * A whole GET that adds a DOWNLOAD entry (artifacts.ts) is a write: the lane answers it only when the
 * generic path would add none (the action's newest entry is the DOWNLOAD of this very path, or its
 * entry quota is full). Everything else takes the generic path, which gives the same answer or the
 * error: a binary not in memory, other credentials (certificates, anonymous access, a token spelled
 * otherwise), percent-encoded paths, the `.MD5SUM` file, If-Match / If-Modified-Since /
 * If-Unmodified-Since, several ranges, a malformed or unsatisfiable range, a repeated header, an empty
 * file, X-Accel-Redirect (a request through a trusted proxy with `artifacts.accelRedirect`).
 * @see reference/hawkbit-api.md §1.1 rows 2-4
 */
import { contentRange, downloadHeaders, validatorHeaders } from '../artifacts/index.js';
import { evaluatePreconditions } from '../artifacts/conditional.js';
import type { HotBinary } from '../artifacts/hot-cache.js';
import { ifRangeAllowsPartial, parseRange } from '../artifacts/range.js';
import { highestPriority } from '../device/active-actions.js';
import { peekTarget } from '../device/registration.js';
import { entryQuotaLeft } from '../device/reports.js';
import { repeatsDownload, type ActionRecord } from '../domain/action.js';
import { isValidControllerId, parsePositiveInt } from '../domain/ids.js';
import { ARTIFACT, DS, type ArtifactRecord, type DistributionSetRecord } from '../domain/repository.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { FileLane, LaneFileReply } from '../http/types.js';
import { peekActiveActionsOf } from '../store/named-reads.js';
import { MISS, type CachedReads, type Stored } from '../store/port.js';
import { laneAuthorized, laneToken } from './auth.js';
import type { DdiDeps } from './deps.js';
import { bySpelling, laneModes } from './lane-keys.js';

/** What the lane derived for one device and file (see above). */
interface Slot {
  readonly reads: CachedReads;
  readonly changes: number;
  readonly config: TenantConfigView;
  /** The path's module id as received. */
  readonly moduleText: string;
  /** The target's token as the lane compares it (laneToken). */
  readonly token: string | undefined;
  readonly binary: HotBinary;
  readonly storedAs: string;
  readonly sha1: string;
  readonly headers: Headers;
  /** A whole GET adds no entry: the delivering action's entry quota is full. */
  readonly quotaFull: boolean;
  /** The delivering action (a whole GET of the path of its newest DOWNLOAD entry adds none: repeatsDownload). */
  readonly action: ActionRecord;
}

/** An artifact's reply headers for one binary, as name, value pairs (shared by every slot of the artifact). */
interface Headers {
  readonly binary: HotBinary;
  readonly full: readonly string[];
  readonly validators: readonly string[];
}

interface Spelling {
  readonly tenant: string;
  /** By the path's controller id, then its file name. */
  readonly devices: Map<string, Map<string, Slot>>;
}

/** At most this many slots in all; beyond it they all go and are made again. */
const MAX_SLOTS = 100_000;

// The request's headers, read in one pass (forEach) into these, without a closure per request.
let authorization = '';
let range: string | undefined;
let ifRange: string | undefined;
let ifNoneMatch: string | undefined;
/** A header the lane leaves to the generic path (an If-* it does not evaluate), or one it reads came twice. */
let declined = false;
function readHeader(name: string, value: string): void {
  switch (name) {
    case 'authorization':
      if (authorization !== '') declined = true;
      authorization = value;
      break;
    case 'range':
      if (range !== undefined) declined = true;
      range = value;
      break;
    case 'if-range':
      if (ifRange !== undefined) declined = true;
      ifRange = value;
      break;
    case 'if-none-match':
      if (ifNoneMatch !== undefined) declined = true;
      ifNoneMatch = value;
      break;
    case 'if-match':
    case 'if-modified-since':
    case 'if-unmodified-since':
      declined = true;
  }
}

function pairs(headers: Readonly<Record<string, string>>): string[] {
  return Object.entries(headers).flat();
}

export function downloadLane(services: DdiDeps): FileLane {
  const known = services.tenants;
  const system = services.ctx.config.ddi.authentication;
  const accel = services.ctx.config.artifacts.accelRedirect;
  const storage = services.artifacts;
  let slotCount = 0;
  const spellings = bySpelling(known, (tenant): Spelling => ({ tenant, devices: new Map<string, Map<string, Slot>>() }));
  const modes = laneModes(system);
  const headersOf = new WeakMap<Stored<ArtifactRecord>, Headers>();
  const headers = (artifact: Stored<ArtifactRecord>, binary: HotBinary): Headers => {
    let h = headersOf.get(artifact);
    if (h === undefined || h.binary !== binary) {
      const file = { sha1: artifact.value.hashes.sha1, mtimeMs: binary.mtimeMs, filename: artifact.value.filename };
      headersOf.set(artifact, (h = { binary, full: pairs(downloadHeaders(file)), validators: pairs(validatorHeaders(file)) }));
    }
    return h;
  };

  /** The slot made again from the cached reads and the hot cache, or undefined: the generic path answers. */
  const renew = (
    spelling: Spelling, controllerId: string, moduleText: string, fileName: string, config: TenantConfigView, reads: CachedReads,
  ): Slot | undefined => {
    const { tenant } = spelling;
    if (controllerId.includes('%') || !isValidControllerId(controllerId)) return undefined;
    // the router decodes and refuses `..`; an artifact named `x.MD5SUM` is found by its own name first
    if (fileName.includes('%') || fileName === '..' || fileName === '') return undefined;
    const moduleId = parsePositiveInt(moduleText);
    if (moduleId === undefined) return undefined;
    const changes = reads.changes;
    const target = peekTarget(reads, tenant, controllerId);
    if (target === MISS || target === undefined) return undefined;
    const actions = peekActiveActionsOf(reads, tenant, target.id);
    if (actions === MISS) return undefined;
    // the actions that deliver the module (artifacts.ts, reachableModules without the installed set)
    const delivering = [];
    for (const action of actions) {
      if (action.value.status === 'canceling') continue;
      const set = reads.peekGet<DistributionSetRecord>(tenant, DS, action.value.ds);
      if (set === MISS) return undefined;
      if (set !== undefined && set.value.modules.includes(moduleId)) delivering.push(action);
    }
    const action = highestPriority(delivering);
    if (action === undefined) return undefined;
    const artifactId = reads.peekLookup(tenant, ARTIFACT, 'moduleFilename', `${moduleId}\u0000${fileName}`);
    if (artifactId === MISS || artifactId === undefined) return undefined;
    const artifact = reads.peekGet<ArtifactRecord>(tenant, ARTIFACT, artifactId);
    if (artifact === MISS || artifact === undefined) return undefined;
    const storedAs = storage.storedAs(tenant, artifact.value.hashes.sha1);
    const binary = storage.hotAt(storedAs);
    if (binary === undefined || binary.bytes.length === 0) return undefined;
    const slot: Slot = {
      reads, changes, config, moduleText, token: laneToken(target.securityToken), binary, storedAs, sha1: artifact.value.hashes.sha1,
      headers: headers(artifact, binary), quotaFull: !entryQuotaLeft(services, action.value),
      action: action.value,
    };
    let files = spelling.devices.get(controllerId);
    if (files === undefined) spelling.devices.set(controllerId, (files = new Map<string, Slot>()));
    if (!files.has(fileName) && ++slotCount > MAX_SLOTS) {
      for (const s of spellings.values()) s.devices.clear();
      slotCount = 1;
      spelling.devices.set(controllerId, files);
    }
    files.set(fileName, slot);
    return slot;
  };

  return (req, head) => {
    const spelling = spellings.of(req.param(0));
    if (spelling === undefined) return undefined;
    const config = services.tenantConfig.cachedView(spelling.tenant);
    if (config === undefined) return undefined;
    // nginx sends the file (X-Accel-Redirect): the generic path answers
    if (accel.enabled && req.fromTrustedProxy) return undefined;
    const controllerId = req.param(1);
    const moduleText = req.param(2);
    const fileName = req.param(3);
    const reads = services.store.cached;
    let slot = spelling.devices.get(controllerId)?.get(fileName);
    if (
      slot === undefined || slot.changes !== reads.changes || slot.reads !== reads || slot.config !== config
      || slot.moduleText !== moduleText || storage.hotAt(slot.storedAs) !== slot.binary
    ) {
      slot = renew(spelling, controllerId, moduleText, fileName, config, reads);
      if (slot === undefined) return undefined;
    }

    authorization = '';
    range = ifRange = ifNoneMatch = undefined;
    declined = false;
    req.forEachHeader(readHeader);
    if (declined) return undefined;
    const m = modes(config);
    if (!laneAuthorized(authorization, m.targetToken ? slot.token : undefined, m.gatewayKey)) return undefined;

    const { binary, headers: h } = slot;
    const size = binary.bytes.length;
    // If-None-Match: 304, for HEAD too (conditional.ts)
    const notModified = ifNoneMatch !== undefined && evaluatePreconditions({ 'if-none-match': ifNoneMatch }, slot.sha1, binary.mtimeMs).kind === 'not-modified';
    if (notModified) return reply(304, h.validators, undefined, undefined, 0);
    if (head) return reply(200, h.full, undefined, undefined, size);
    if (range !== undefined && ifRangeAllowsPartial(ifRange, `"${slot.sha1}"`, binary.mtimeMs)) {
      const wanted = parseRange(range, size);
      if (wanted.kind === 'ranges') {
        const only = wanted.ranges.length === 1 ? wanted.ranges[0] : undefined;
        if (only === undefined) return undefined; // several: multipart, by the generic path
        return reply(206, h.full, contentRange(only, size), binary.bytes.subarray(only.start, only.end + 1), 0);
      }
      if (wanted.kind !== 'full') return undefined; // malformed, unsatisfiable: the generic path's 416
    }
    // the whole file: only when the generic path would add no DOWNLOAD entry
    if (!slot.quotaFull && !repeatsDownload(slot.action, req.url())) return undefined;
    return reply(200, h.full, undefined, binary.bytes, 0);
  };
}

function reply(
  status: 200 | 206 | 304, headers: readonly string[], range: string | undefined, body: Buffer | undefined, length: number,
): LaneFileReply {
  return { status, headers, contentRange: range, body, length };
}
