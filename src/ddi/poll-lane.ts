/**
 * The poll's express lane (Route.lane; ARCHITECTURE.md, "The poll hot path"). A known target that
 * presents its TargetToken (or the tenant's GatewayToken) in the usual spelling, whose last poll
 * reply is memoised (poll.ts) and still holds, is answered from that memo: 200 with the bytes
 * prepared once, or 304 when If-None-Match names its ETag. Per poll the lane reads the two path
 * parameters and four headers, takes the poll limiter's token and notes the poll for the write-behind
 * recorder (reading the peer address only for the first poll of a device in each flush interval: the
 * address written is that poll's); it builds no request object, no header map and no reply value.
 *
 * Everything else takes the generic path, which gives the same answer or the error: first polls,
 * anything not in the cache, other credentials (certificates, anonymous access, a token spelled
 * otherwise), CBOR or an Accept that is not JSON, percent-encoded paths, IPv6 peers, a memo that no
 * longer holds (or a body that depends on the time: maintenance windows, time-forced actions), and
 * a device over its poll rate (the generic path answers the 429). Behind a trusted proxy the base URL
 * and the address come from its X-Forwarded-* headers, as on the generic path.
 * @see reference/hawkbit-api.md §1.1 row 1, §1.3
 */
import { isValidControllerId } from '../domain/ids.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { noneMatch } from '../http/etag.js';
import { negotiate } from '../http/negotiate.js';
import type { Lane } from '../http/types.js';
import { MISS } from '../store/port.js';
import { highestPriority, peekActiveActions } from './active-action.js';
import { tokenModes, tokensEqual, type TokenModes } from './auth.js';
import { deviceAddress, knownTenant, peekTarget } from './device.js';
import { memoOf, minPollingMs, type PollDeps } from './poll.js';

const TARGET_TOKEN = 'TargetToken ';
const GATEWAY_TOKEN = 'GatewayToken ';
const WHITESPACE = /\s/;

/** What the lane reads of a tenant's configuration, once per configuration view. */
interface Settings extends TokenModes {
  readonly minPollingMs: number;
}
const settingsOf = new WeakMap<TenantConfigView, Settings>();

export function pollLane({ services, recorder, limiter }: PollDeps): Lane {
  const known = new Set(services.tenants);
  const system = services.ctx.config.ddi.authentication;
  // the tenant as the path spells it -> canonical; a bounded number of spellings is remembered
  const spellings = new Map<string, string>();
  const tenantOf = (pathTenant: string): string | undefined => {
    let tenant = spellings.get(pathTenant);
    if (tenant === undefined) {
      tenant = knownTenant(pathTenant, known);
      if (tenant !== undefined && spellings.size < 1024) spellings.set(pathTenant, tenant);
    }
    return tenant;
  };
  const settings = (config: TenantConfigView): Settings => {
    let s = settingsOf.get(config);
    if (s === undefined) {
      s = { ...tokenModes(config, system), minPollingMs: minPollingMs(config) };
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

  return (req) => {
    const pathTenant = req.param(0);
    const controllerId = req.param(1);
    const tenant = tenantOf(pathTenant);
    if (tenant === undefined || controllerId.includes('%') || !isValidControllerId(controllerId)) return undefined;
    const config = services.tenantConfig.cachedView(tenant);
    if (config === undefined) return undefined;
    const cached = services.ctx.store.cached;
    const target = peekTarget(cached, tenant, controllerId);
    if (target === MISS || target === undefined || target.updateStatus === 'unknown') return undefined;

    const s = settings(config);
    const authorization = req.header('authorization');
    let token: string;
    let expected: string | undefined;
    if (authorization.startsWith(TARGET_TOKEN)) {
      token = authorization.slice(TARGET_TOKEN.length);
      expected = s.targetToken && target.securityToken !== '' ? target.securityToken : undefined;
    } else if (authorization.startsWith(GATEWAY_TOKEN)) {
      token = authorization.slice(GATEWAY_TOKEN.length);
      expected = s.gatewayKey;
    } else {
      return undefined;
    }
    if (expected === undefined || !tokensEqual(token, expected) || WHITESPACE.test(token)) return undefined;

    const actions = peekActiveActions(cached, tenant, target.id);
    if (actions === MISS) return undefined;
    const top = highestPriority(actions);
    const now = services.now();
    if (top !== undefined && (top.value.maintenanceWindow !== null || (top.value.actionType === 'timeforced' && now < top.value.forceTime))) return undefined;
    const memo = memoOf(target);
    const trusted = req.fromTrustedProxy;
    if (
      memo === undefined || memo.top !== top || memo.config !== config || memo.pathTenant !== pathTenant
      || memo.controllerId !== controllerId || (trusted ? memo.baseUrl !== req.baseUrl() : memo.host !== req.header('host'))
    ) {
      return undefined;
    }
    const accept = req.header('accept');
    const flavour = negotiate(accept, true);
    if (flavour !== 'hal' && flavour !== 'json') return undefined;
    const note = recorder.noted(tenant, target.id);
    let address: string | null = null;
    if (note === undefined) {
      const ip = req.ipv4();
      if (ip < 0) return undefined;
      const forwarded = trusted ? req.header('x-forwarded-for') : '';
      address = forwarded === '' ? addressText(ip) : deviceAddress(dottedQuad(ip), forwarded);
    }
    if (!limiter.take(tenant, target.id, s.minPollingMs, now).ok) return undefined;
    if (note === undefined) recorder.record(tenant, target.id, now, address);
    else recorder.touch(note, now);
    const ifNoneMatch = req.header('if-none-match');
    if (ifNoneMatch !== '' && noneMatch(ifNoneMatch, memo.lane.notModified.etag)) return memo.lane.notModified;
    return flavour === 'hal' ? memo.lane.hal : memo.lane.json;
  };
}

function dottedQuad(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}
