/**
 * deploymentBase's express lane (Route.lane), after the poll's (poll-lane.ts): a known target that
 * presents its TargetToken (or the tenant's GatewayToken) in the usual spelling and fetches an action
 * whose reply is kept (deployment-replies.ts) and still holds is answered from that memo: 200 with the
 * bytes prepared once, or 304 when If-None-Match names its ETag. It reads the three path parameters, the
 * query and four headers; the tenant's configuration, the target and the action come from the cached
 * reads, the set's modules from their memo. A fetch the lane answers has nothing else to do: the memo
 * is only made for one that records nothing and cancels nothing (`keepable`), so no side effect is skipped.
 *
 * Everything else takes the generic path, which gives the same answer or the error: anything not in the
 * cache or not kept, an action of another target, other credentials (certificates, anonymous access, a
 * token spelled otherwise), CBOR or an Accept that is not JSON, percent-encoded paths, a query other
 * than the poll link's `c` (an action history, say), a memo made for another base URL.
 * @see reference/hawkbit-api.md §1.1 row 5, §1.3
 */
import { peekTarget } from '../device/registration.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { isValidControllerId, parsePositiveInt } from '../domain/ids.js';
import { noneMatch } from '../http/etag.js';
import { laneHeader } from '../http/lane.js';
import { negotiate } from '../http/negotiate.js';
import type { Lane, LaneRequest } from '../http/types.js';
import { MISS } from '../store/port.js';
import { laneAuthorized, laneToken } from './auth.js';
import { laneModes } from './lane-keys.js';
import type { DdiDeps } from './deps.js';
import { setModulesOf } from './deployment-json.js';
import { deploymentMemoOf, keepable, type DeploymentMemo } from './deployment-replies.js';
import { knownTenant } from './device.js';

const AUTHORIZATION = laneHeader('authorization');
const HOST = laneHeader('host');
const ACCEPT = laneHeader('accept');
const IF_NONE_MATCH = laneHeader('if-none-match');
/** The poll link's query: `c` as an int32 (linkedFetchParams checks it so on the generic path). */
const C_ONLY = /^c=-?[0-9]{1,10}$/;

/** The query the lane answers: none, or the poll link's `c` alone. */
function plainQuery(query: string): boolean {
  if (query === '') return true;
  if (!C_ONLY.test(query)) return false;
  const c = Number(query.slice(2));
  return c <= 2_147_483_647 && c >= -2_147_483_648;
}

export function deploymentLane(services: DdiDeps): Lane {
  const known = services.tenants;
  const system = services.ctx.config.ddi.authentication;
  const reads = services.store.cached;
  const sets = setModulesOf(reads);
  // the canonical tenant of a path's spelling; a bounded number of spellings is remembered
  const spellings = new Map<string, string>();
  const modes = laneModes(system);
  /** The memo was made for this request's base URL. */
  const suits = (memo: DeploymentMemo, req: LaneRequest): boolean =>
    req.fromTrustedProxy ? memo.baseUrl === req.baseUrl() : memo.host === req.header(HOST);

  return (req) => {
    const pathTenant = req.param(0);
    let tenant = spellings.get(pathTenant);
    // a tenant deleted at runtime: its spelling no longer counts (src/tenancy/registry.ts)
    if (tenant !== undefined && !known.has(tenant)) return undefined;
    if (tenant === undefined) {
      tenant = knownTenant(pathTenant, known);
      if (tenant === undefined) return undefined;
      if (spellings.size < 1024) spellings.set(pathTenant, tenant);
    }
    const config = services.tenantConfig.cachedView(tenant);
    if (config === undefined) return undefined;
    const controllerId = req.param(1);
    if (controllerId.includes('%') || !isValidControllerId(controllerId)) return undefined;
    const target = peekTarget(reads, tenant, controllerId);
    if (target === MISS || target === undefined) return undefined;
    const actionId = parsePositiveInt(req.param(2));
    if (actionId === undefined) return undefined;
    const action = reads.peekGet<ActionRecord>(tenant, ACTION, actionId);
    if (action === MISS || action === undefined || action.value.targetId !== target.id) return undefined;
    // made for this very record (so it was shown and kept then), this configuration, path and base URL
    const memo = deploymentMemoOf(action);
    if (
      memo === undefined || memo.config !== config || memo.pathTenant !== pathTenant || memo.controllerId !== controllerId
      || !suits(memo, req)
    ) {
      return undefined;
    }
    if (!keepable(action.value, services.now()) || memo.set !== sets.peek(tenant, action.value.ds)) return undefined;
    if (!plainQuery(req.query())) return undefined;

    const m = modes(config);
    const targetToken = m.targetToken ? laneToken(target.securityToken) : undefined;
    if (!laneAuthorized(req.header(AUTHORIZATION), targetToken, m.gatewayKey)) return undefined;

    const flavour = negotiate(req.header(ACCEPT), true);
    if (flavour !== 'hal' && flavour !== 'json') return undefined;
    const ifNoneMatch = req.header(IF_NONE_MATCH);
    if (ifNoneMatch !== '' && noneMatch(ifNoneMatch, memo.etag)) return memo.lane.notModified;
    return flavour === 'hal' ? memo.lane.hal : memo.lane.json;
  };
}
