/**
 * The poll's express lane (Route.lane; ARCHITECTURE.md, "The poll hot path"). A known target that
 * presents its TargetToken (or the tenant's GatewayToken) in the usual spelling, whose last poll
 * reply is memoised (poll.ts) and still holds, is answered from that memo: 200 with the bytes
 * prepared once, or 304 when If-None-Match names its ETag. Per poll the lane reads the two path
 * parameters and four headers, takes the poll limiter's token and notes the poll for the write-behind
 * recorder; it builds no request object, no header map and no reply value. The peer address (a
 * socket call and a buffer) is read at most once per `ddi.pollAddressRefreshMs` per device: the address
 * written with a poll is at most that old (behind a trusted proxy the forwarded one, read every time).
 *
 * What the lane derives from the cached reads for a device (the target's id and token, the top action's
 * force time, the memo, the poll-limiter bucket and the recorder note) it keeps in a per-device slot,
 * found with one map lookup by the path's own strings, for as long as the cached reads report no change
 * (CachedReads.changes), the tenant's configuration view is the same and the memo suits the request's
 * host; otherwise it reads them again.
 *
 * Everything else takes the generic path, which gives the same answer or the error: first polls,
 * anything not in the cache, other credentials (certificates, anonymous access, a token spelled
 * otherwise), CBOR or an Accept that is not JSON, percent-encoded paths, IPv6 peers, a memo that no
 * longer holds (or a body that depends on the time: maintenance windows, time-forced actions), and
 * a device over its poll rate (the generic path answers the 429). Behind a trusted proxy the base URL
 * and the address come from its X-Forwarded-* headers, as on the generic path.
 * @see reference/hawkbit-api.md §1.1 row 1, §1.3
 */
import { highestPriority } from '../device/active-actions.js';
import { peekTarget } from '../device/registration.js';
import { isValidControllerId } from '../domain/ids.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { noneMatch } from '../http/etag.js';
import { laneHeader } from '../http/lane.js';
import { negotiate } from '../http/negotiate.js';
import type { Lane, LaneRequest } from '../http/types.js';
import { peekActiveActionsOf } from '../store/named-reads.js';
import { MISS, type CachedReads } from '../store/port.js';
import { laneAuthorized, laneToken, tokenModes, type TokenModes } from './auth.js';
import { clientIpOf, deviceAddress } from './device.js';
import { bySpelling } from './lane-keys.js';
import { memoOf, minPollingMs, type Memo, type PollDeps } from './poll.js';
import type { Bucket } from './poll-limiter.js';
import type { Note } from './poll-recorder.js';

const AUTHORIZATION = laneHeader('authorization');
const HOST = laneHeader('host');
const ACCEPT = laneHeader('accept');
const IF_NONE_MATCH = laneHeader('if-none-match');
const X_FORWARDED_FOR = laneHeader('x-forwarded-for');

/**
 * What the lane reads of a tenant's configuration, once per configuration view; `gatewayKey` as the lane
 * compares it (laneToken: undefined when off or holding whitespace).
 */
interface Settings extends TokenModes {
  readonly minPollingMs: number;
}

const settingsOf = new WeakMap<TenantConfigView, Settings>();

/** What the lane derived for one device (see above); kept while `reads.changes` and `config` stay. */
interface Slot {
  reads: CachedReads;
  changes: number;
  config: TenantConfigView;
  /** The target's id and its token as the lane compares it (laneToken), copied: a frozen record's fields are megamorphic loads. */
  targetId: number;
  token: string | undefined;
  /** Until when the top action is time-forced and not yet forced (its body then depends on the time). */
  forcedUntil: number;
  memo: Memo;
  /** The limiter's bucket for the target, while the limiter's generations have not turned since. */
  bucket: Bucket | undefined;
  /** The address read last is one the limiter never paces (ddi.pollLimiter.exemptCidrs). */
  exempt: boolean;
  rotations: number;
  /**
   * The target's note for the recorder (made with the slot), updated in place; in the recorder's batch while
   * its `flushes` stays. Its address is the one read last, at `addressAt`.
   */
  readonly note: Note;
  flushes: number;
  addressAt: number;
}

/** A tenant as a path spells it: its name and the slots of the devices polling under that spelling (by the path's controller id). */
interface Spelling {
  readonly tenant: string;
  readonly slots: Map<string, Slot>;
}

/** At most this many slots in all (each holds a target record and its memo); beyond it they all go and are made again. */
function maxSlots(store: 'memory' | 'redis', cacheEntries: number): number {
  // a slot per device served from the cache, which holds three or four entries per device
  return store === 'memory' ? 1_000_000 : Math.max(1000, Math.floor(cacheEntries / 3));
}

export function pollLane({ services, recorder, limiter }: PollDeps): Lane {
  const known = services.tenants;
  const { config: serverConfig } = services.ctx;
  const system = serverConfig.ddi.authentication;
  const slotLimit = maxSlots(serverConfig.store.kind, serverConfig.store.redisCacheEntries);
  const addressRefreshMs = serverConfig.ddi.pollAddressRefreshMs;
  let slotCount = 0;
  const spellings = bySpelling(known, (tenant): Spelling => ({ tenant, slots: new Map<string, Slot>() }));
  const settings = (config: TenantConfigView): Settings => {
    let s = settingsOf.get(config);
    if (s === undefined) {
      const modes = tokenModes(config, system);
      s = { ...modes, gatewayKey: laneToken(modes.gatewayKey), minPollingMs: minPollingMs(config) };
      settingsOf.set(config, s);
    }
    return s;
  };
  // 'http://a.b.c.d' per peer address, as the poll records it (deviceAddress in device.ts)
  const addresses = new Map<number, string>();
  const addressText = (ip: number): string => {
    let text = addresses.get(ip);
    if (text === undefined) {
      if (addresses.size >= 65_536) addresses.clear();
      text = `http://${dottedQuad(ip)}`;
      addresses.set(ip, text);
    }
    return text;
  };
  /** The memo was made for this request's base URL. */
  const suits = (memo: Memo, req: LaneRequest): boolean =>
    req.fromTrustedProxy ? memo.baseUrl === req.baseUrl() : memo.host === req.header(HOST);

  /** The device's slot made again from the cached reads, or undefined: the generic path answers. */
  const renew = (
    spelling: Spelling, pathTenant: string, controllerId: string, config: TenantConfigView, reads: CachedReads, req: LaneRequest,
  ): Slot | undefined => {
    const { tenant } = spelling;
    if (controllerId.includes('%') || !isValidControllerId(controllerId)) return undefined;
    const target = peekTarget(reads, tenant, controllerId);
    if (target === MISS || target === undefined || target.updateStatus === 'unknown') return undefined;
    const actions = peekActiveActionsOf(reads, tenant, target.id);
    if (actions === MISS) return undefined;
    const top = highestPriority(actions);
    // a maintenance window makes the body depend on the time: the generic path answers every such poll
    if (top !== undefined && top.value.maintenanceWindow !== null) return undefined;
    const forcedUntil = top !== undefined && top.value.actionType === 'timeforced' ? top.value.forceTime : -Infinity;
    const memo = memoOf(target);
    if (
      memo === undefined || memo.top !== top || memo.config !== config || memo.pathTenant !== pathTenant
      || memo.controllerId !== controllerId || !suits(memo, req)
    ) {
      return undefined;
    }
    const old = spelling.slots.get(controllerId);
    if (old !== undefined && old.targetId === target.id) {
      // the same target: renewed in place (under steady writes every poll renews; no garbage for that)
      old.reads = reads;
      old.changes = reads.changes;
      old.config = config;
      old.token = laneToken(target.securityToken);
      old.forcedUntil = forcedUntil;
      old.memo = memo;
      return old;
    }
    const slot: Slot = {
      reads, changes: reads.changes, config, targetId: target.id, token: laneToken(target.securityToken), forcedUntil, memo,
      bucket: undefined, rotations: -1, exempt: false, note: { id: target.id, at: 0, address: null }, flushes: -1, addressAt: -Infinity,
    };
    if (old === undefined && ++slotCount > slotLimit) {
      for (const s of spellings.values()) s.slots.clear();
      slotCount = 1;
    }
    spelling.slots.set(controllerId, slot);
    return slot;
  };

  return (req) => {
    const pathTenant = req.param(0);
    const spelling = spellings.of(pathTenant);
    if (spelling === undefined) return undefined;
    const { tenant } = spelling;
    const config = services.tenantConfig.cachedView(tenant);
    if (config === undefined) return undefined;
    const controllerId = req.param(1);
    const reads = services.store.cached;
    let slot = spelling.slots.get(controllerId);
    if (slot === undefined || slot.changes !== reads.changes || slot.reads !== reads || slot.config !== config || !suits(slot.memo, req)) {
      slot = renew(spelling, pathTenant, controllerId, config, reads, req);
      if (slot === undefined) return undefined;
    }
    const { targetId, memo } = slot;

    const s = settings(config);
    if (!laneAuthorized(req.header(AUTHORIZATION), s.targetToken ? slot.token : undefined, s.gatewayKey)) return undefined;

    const now = services.now();
    // read from the slot: the action record's fields are megamorphic loads (frozen records of many shapes)
    if (now < slot.forcedUntil) return undefined;
    const flavour = negotiate(req.header(ACCEPT), true);
    if (flavour !== 'hal' && flavour !== 'json') return undefined;
    const noted = slot.flushes === recorder.flushes;
    if (!noted && (req.fromTrustedProxy || now - slot.addressAt >= addressRefreshMs)) {
      const ip = req.ipv4();
      if (ip < 0) return undefined;
      const forwarded = req.fromTrustedProxy ? req.header(X_FORWARDED_FOR) : '';
      slot.note.address = forwarded === '' ? addressText(ip) : deviceAddress(dottedQuad(ip), forwarded);
      slot.exempt = limiter.exempting && (forwarded === '' ? limiter.exempt(ip) : limiter.exemptText(clientIpOf(dottedQuad(ip), forwarded)));
      slot.addressAt = now;
    }
    if (s.minPollingMs > 0 && !slot.exempt) {
      if (slot.bucket === undefined || slot.rotations !== limiter.rotations) {
        slot.bucket = limiter.bucket(tenant, targetId, now);
        slot.rotations = limiter.rotations;
      }
      if (!limiter.takeFrom(slot.bucket, s.minPollingMs, now).ok) return undefined;
    }
    const { note } = slot;
    if (noted) {
      recorder.touch(note, now);
    } else {
      note.at = now;
      recorder.enqueue(tenant, note);
      slot.flushes = recorder.flushes;
    }
    const ifNoneMatch = req.header(IF_NONE_MATCH);
    if (ifNoneMatch !== '' && noneMatch(ifNoneMatch, memo.etag)) return memo.notModified;
    return flavour === 'hal' ? memo.hal : memo.json;
  };
}

function dottedQuad(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}
