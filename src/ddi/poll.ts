/**
 * The poll, `GET /{tenant}/controller/v1/{controllerId}`: by far the most frequent request
 * (ARCHITECTURE.md, "The poll hot path"). In the common case it costs no XState interpretation and
 * no store round trip: the target and its active actions come through `store.cached`, the tenant
 * configuration through `cachedView`; the poll time and address are written behind; the body is
 * built as a string and answered 304 when the device's If-None-Match names its ETag.
 * Registration (first poll) and a lapsed maintenance schedule are the rare exceptions that write.
 * @see reference/hawkbit-api.md §1.1 row 1, §1.3, §2 (root poll)
 */
import type { DdiDeps } from './deps.js';
import { cancelLapsed, highestPriority, lapsed, maintenanceState } from '../device/active-actions.js';
import type { ActionRecord } from '../domain/action.js';
import { AppError } from '../domain/errors.js';
import type { TargetRecord } from '../domain/target.js';
import type { WindowState } from '../domain/maintenance.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { etagOf } from '../http/etag.js';
import { HAL_TYPE, JSON_TYPE } from '../http/negotiate.js';
import type { Handler, LaneReply, Reply, Request } from '../http/types.js';
import { activeActionsOf, peekActiveActionsOf } from '../store/named-reads.js';
import { MISS, type Stored } from '../store/port.js';
import { addressOf, clientIp, device, registerTarget, type Device } from './device.js';
import { deviceUrl } from './links.js';
import { linkHash, pollSleep } from './poll-values.js';
import type { PollDecision, PollLimiter } from './poll-limiter.js';
import type { PollRecorder } from './poll-recorder.js';

export interface PollDeps {
  readonly services: DdiDeps;
  readonly recorder: PollRecorder;
  readonly limiter: PollLimiter;
}

const OK: PollDecision = { ok: true };

// a tenant's view object is replaced whenever its configuration changes, so it can key a memo
const minPolling = new WeakMap<TenantConfigView, number>();
export function minPollingMs(config: TenantConfigView): number {
  let ms = minPolling.get(config);
  if (ms === undefined) minPolling.set(config, (ms = config.durationMs('minPollingTime')));
  return ms;
}

export function pollHandler({ services, recorder, limiter }: PollDeps): Handler {
  const cached = services.store.cached;
  /** Registration, cache misses and lapsed maintenance windows: the rare paths that await. */
  const slow = async (req: Request, d: Device, target: TargetRecord | undefined, address: string | null, now: number): Promise<Reply> => {
    if (target === undefined || target.updateStatus === 'unknown') {
      const isNew = target === undefined;
      target = await registerTarget(services, d, address, now);
      if (isNew) limiter.registered(d.tenant, d.controllerId, target.id); // it was paced by its controller id so far
    }
    recorder.record(d.tenant, target.id, now, address);
    let top = highestPriority(await activeActionsOf(cached, d.tenant, target.id));
    const state = top === undefined ? undefined : maintenanceState(top.value, now);
    if (top !== undefined && lapsed(state) && top.value.status !== 'canceling') top = await cancelLapsed(services, d.tenant, top, now);
    return { status: 200, jsonText: pollBody(req, d, target, top, state, now) };
  };
  // The common case answers synchronously: a known target whose actions are all in the cache.
  return (req) => {
    const d = device(req);
    const now = services.now();
    const exempt = limiter.exempting && limiter.exemptText(clientIp(req));
    const pace = exempt ? OK : limiter.take(d.tenant, d.target?.id ?? d.controllerId, minPollingMs(d.config), now);
    if (!pace.ok) {
      throw new AppError('TOO_MANY_REQUESTS', `Target '${d.controllerId}' polls faster than allowed; retry after ${pace.retryAfterSeconds} s.`, {
        headers: { 'Retry-After': String(pace.retryAfterSeconds) },
      });
    }
    // one copy per address for the poll record and a registration's target record (a fleet behind a gateway has few)
    const peer = addressOf(req);
    const address = peer === null ? null : sharedAddress(peer);
    const target = d.target;
    if (target === undefined || target.updateStatus === 'unknown') return slow(req, d, target, address, now);
    const actions = peekActiveActionsOf(cached, d.tenant, target.id);
    if (actions === MISS) return slow(req, d, target, address, now);
    const top = highestPriority(actions);
    const state = top === undefined ? undefined : maintenanceState(top.value, now);
    if (top !== undefined && lapsed(state) && top.value.status !== 'canceling') return slow(req, d, target, address, now);
    recorder.record(d.tenant, target.id, now, address);
    return pollReply(req, d, target, top, state, now);
  };
}

/**
 * A poll's reply as it was last answered to this target, with its ETag: the common poll neither
 * builds a body nor hashes one. It holds while the target record, its top action, the tenant's
 * configuration view (all replaced, never changed, when they change), the base URL and the path's
 * tenant and controller id are the same, and nothing in the body depends on the time: no maintenance
 * window, and no time-forced action before its force time (its link hash changes then). The express
 * lane (poll-lane.ts) answers from the same memo, with the bytes prepared once.
 */
export class Memo {
  /**
   * The generic path's reply (JSON text and ETag), decoded from the bytes on its first hit and kept: a device the
   * lane answers never pays for the text, one the generic path answers (CBOR, certificates, ...) decodes it once.
   */
  reply: Reply | undefined = undefined;
  /*
   * The reply in the lane's three forms (200 HAL, 200 JSON, 304), each made on its first use: a device asks for one
   * flavour, and for the 304 only when it sends If-None-Match (three frozen replies and their holder cost 216 bytes
   * per device made up front). Kept in the memo itself, not in an object of their own: 32 bytes less per device.
   */
  #hal: LaneReply | undefined = undefined;
  #json: LaneReply | undefined = undefined;
  #notModified: LaneReply | undefined = undefined;

  constructor(
    readonly top: Stored<ActionRecord> | undefined,
    readonly config: TenantConfigView,
    readonly baseUrl: string,
    /** The Host header the base URL came from; undefined when a trusted proxy's headers made it. */
    readonly host: string | undefined,
    readonly pathTenant: string,
    readonly controllerId: string,
    /** The reply's ETag and bytes as the lane sends them. */
    readonly etag: string,
    readonly body: Buffer,
  ) {}

  get hal(): LaneReply {
    return (this.#hal ??= Object.freeze({ status: 200, etag: this.etag, contentType: HAL_TYPE, body: this.body }));
  }

  get json(): LaneReply {
    return (this.#json ??= Object.freeze({ status: 200, etag: this.etag, contentType: JSON_TYPE, body: this.body }));
  }

  get notModified(): LaneReply {
    return (this.#notModified ??= Object.freeze({ status: 304, etag: this.etag, contentType: '', body: EMPTY }));
  }
}
// keyed by the target record: a replaced record drops its entry with it
const memos = new WeakMap<TargetRecord, Memo>();

/** The memo of the target's last timeless poll reply, if any (the caller checks that it still holds). */
export function memoOf(target: TargetRecord): Memo | undefined {
  return memos.get(target);
}

function pollReply(
  req: Request, d: Device, target: TargetRecord, top: Stored<ActionRecord> | undefined, state: WindowState | undefined, now: number,
): Reply {
  const timeless = state === undefined && (top === undefined || top.value.actionType !== 'timeforced' || now >= top.value.forceTime);
  if (!timeless) return { status: 200, jsonText: pollBody(req, d, target, top, state, now) };
  const baseUrl = req.baseUrl;
  const m = memos.get(target);
  if (
    m !== undefined && m.top === top && m.config === d.config && m.baseUrl === baseUrl
    && m.pathTenant === d.pathTenant && m.controllerId === d.controllerId
  ) {
    return (m.reply ??= { status: 200, jsonText: m.body.toString(), etag: m.etag });
  }
  const jsonText = pollBody(req, d, target, top, state, now);
  const etag = etagOf(jsonText);
  const host = req.fromTrustedProxy ? undefined : req.headers['host'];
  memos.set(target, new Memo(
    top, d.config, shared(baseUrl), host === undefined ? undefined : shared(host),
    // the strings held anyway when they are the same (a request's own copies would cost 24-90 bytes each, per device)
    shared(d.pathTenant), d.controllerId === target.controllerId ? target.controllerId : d.controllerId,
    etag, Buffer.from(jsonText),
  ));
  return { status: 200, jsonText, etag };
}
const EMPTY = Buffer.alloc(0);

/** A function answering one copy of each text given to it: the first `limit` distinct ones are kept, later ones not. */
function sharing(limit: number): (text: string) => string {
  const held = new Map<string, string>();
  return (text) => {
    const copy = held.get(text);
    if (copy !== undefined) return copy;
    if (held.size < limit) held.set(text, text);
    return text;
  };
}

/**
 * One copy of each base URL, Host header and path tenant the memos hold (a fleet polls through few), not one per device;
 * beyond 1,024 distinct ones a memo keeps its own.
 */
const shared = sharing(1024);
/** One copy of each device address the generic path records (a fleet behind a gateway has few), apart from the above. */
const sharedAddress = sharing(1024);

/**
 * The root body, written directly. Every interpolated piece is JSON-safe without escaping: the base
 * URL passed the http layer's host check, the tenant is ASCII-checked, the controller id is
 * percent-encoded, the rest are numbers and HH:MM:SS.
 */
export function pollBody(
  req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId' | 'config'>, target: TargetRecord,
  top: Stored<ActionRecord> | undefined, state: WindowState | undefined, now: number,
): string {
  const sleep = pollSleep(d.config, state, now);
  let links = '';
  let base: string | undefined;
  if (top !== undefined) {
    base = deviceUrl(req, d);
    const a = top.value;
    if (a.status === 'canceling') links = `"cancelAction":{"href":"${base}/cancelAction/${a.id}"}`;
    else if (a.status === 'wait_for_confirmation') links = `"confirmationBase":{"href":"${base}/confirmationBase/${a.id}?c=${linkHash(top, state, now)}"}`;
    else links = `"deploymentBase":{"href":"${base}/deploymentBase/${a.id}?c=${linkHash(top, state, now)}"}`;
  }
  if (target.installedAction !== null) {
    base ??= deviceUrl(req, d);
    links += `${links === '' ? '' : ','}"installedBase":{"href":"${base}/installedBase/${target.installedAction}"}`;
  }
  if (target.requestAttributes) {
    base ??= deviceUrl(req, d);
    links += `${links === '' ? '' : ','}"configData":{"href":"${base}/configData"}`;
  }
  const config = `{"config":{"polling":{"sleep":"${sleep}"}}`;
  return links === '' ? `${config}}` : `${config},"_links":{${links}}}`;
}
