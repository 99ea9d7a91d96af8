import type { TARGET, TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import type { Request } from '../../http/types.js';
import type { Within } from '../../query/list.js';
import { DEFAULT_TARGET_SORT, addressOf, queryTargets, targetFields } from '../../query/targets.js';
import type { PollRecord, Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link, pageOf, segment, type Link } from '../kit/hal.js';
import { evalContext, listParams } from '../kit/list.js';
import { holds } from '../kit/request.js';

/**
 * Target JSON, and the target lists and renderers other resources use (a tag's targets, a set's
 * assigned targets, rollout group targets). @see reference §3.1
 */
export type TargetViewDeps = Pick<KitDeps, 'store' | 'now' | 'tenantConfig' | 'limits'>;

/** What rendering a target needs beside the record (loaded once per response). */
export interface TargetRenderContext {
  readonly req: Request;
  readonly now: number;
  /** Tenant `pollingTime` and `pollingOverdueTime`, ms. */
  readonly pollingMs: number;
  readonly overdueMs: number;
  /** Tenant `user.confirmation.flow.enabled`. */
  readonly confirmationFlow: boolean;
  /** The caller holds READ_TARGET_SECURITY_TOKEN. */
  readonly showToken: boolean;
}

/**
 * The host part of an address URI (`http://1.2.3.4` -> `1.2.3.4`); undefined when it has none.
 * An `amqp://` address (a DMF target) names a virtual host, not the device: no ipAddress (hawkBit's IpUtil.isIpAddresKnown).
 */
export function hostOf(address: string | null): string | undefined {
  if (address === null) return undefined;
  try {
    const url = new URL(address);
    if (url.protocol === 'amqp:') return undefined;
    const host = url.hostname;
    return host === '' ? undefined : host.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
}

export const targetPath = (controllerId: string): string => `/rest/v1/targets/${segment(controllerId)}`;

/**
 * MgmtTarget JSON (reference §3.1; NON_NULL: absent values are left out). Lists carry only the
 * `self` link; single GET/PUT responses (`full`) add the target's sub-resources.
 */
export function targetJson(
  t: TargetRecord, poll: PollRecord | undefined, typeName: string | undefined, rc: TargetRenderContext, full: boolean,
): object {
  const address = addressOf(t, poll);
  const out: Record<string, unknown> = { ...auditJson(t), name: t.name };
  if (t.description !== null) out['description'] = t.description;
  out['controllerId'] = t.controllerId;
  out['updateStatus'] = t.updateStatus;
  if (poll !== undefined) out['lastControllerRequestAt'] = poll.at;
  if (t.installedAt !== null) out['installedAt'] = t.installedAt;
  const ip = hostOf(address);
  if (ip !== undefined) out['ipAddress'] = ip;
  if (address !== null) out['address'] = address;
  if (poll !== undefined) {
    const next = poll.at + rc.pollingMs;
    out['pollStatus'] = { lastRequestAt: poll.at, nextExpectedRequestAt: next, overdue: rc.now > next + rc.overdueMs };
  }
  if (rc.showToken) out['securityToken'] = t.securityToken;
  out['requestAttributes'] = t.requestAttributes;
  if (t.targetType !== null) out['targetType'] = t.targetType;
  if (typeName !== undefined) out['targetTypeName'] = typeName;
  if (rc.confirmationFlow) out['autoConfirmActive'] = t.autoConfirm !== null;
  if (t.group !== null) out['group'] = t.group;
  out['_links'] = full ? fullLinks(t, rc) : { self: link(rc.req, targetPath(t.controllerId)) };
  return out;
}

function fullLinks(t: TargetRecord, rc: TargetRenderContext): Record<string, Link> {
  const base = targetPath(t.controllerId);
  const links: Record<string, Link> = {
    self: link(rc.req, base),
    assignedDS: link(rc.req, `${base}/assignedDS`),
    installedDS: link(rc.req, `${base}/installedDS`),
    attributes: link(rc.req, `${base}/attributes`),
    actions: link(rc.req, `${base}/actions?offset=0&limit=50&sort=id:DESC`),
    metadata: link(rc.req, `${base}/metadata?offset=0&limit=50`),
  };
  if (t.targetType !== null) links['targetType'] = link(rc.req, `/rest/v1/targettypes/${t.targetType}`);
  if (rc.confirmationFlow) links['autoConfirm'] = link(rc.req, `${base}/autoConfirm`);
  return links;
}

/** Target JSON for each record, with poll status, type name and (when `full`) all links. */
export async function renderTargets(
  deps: TargetViewDeps, tenant: Tenant, req: Request, targets: readonly TargetRecord[], opts: { full?: boolean } = {},
): Promise<object[]> {
  if (targets.length === 0) return [];
  const { store } = deps;
  const [polls, types, cfg] = await Promise.all([
    store.getPolls(tenant, targets.map((t) => t.id)),
    loadMap<TargetTypeRecord>(store, tenant, TARGET_TYPE, targets.map((t) => t.targetType)),
    deps.tenantConfig.view(tenant),
  ]);
  const rc: TargetRenderContext = {
    req,
    now: deps.now(),
    pollingMs: cfg.durationMs('pollingTime'),
    overdueMs: cfg.durationMs('pollingOverdueTime'),
    confirmationFlow: cfg.bool('user.confirmation.flow.enabled'),
    showToken: holds(req, 'READ_TARGET_SECURITY_TOKEN'),
  };
  return targets.map((t, i) => {
    const typeName = t.targetType === null ? undefined : types.get(t.targetType)?.name;
    return targetJson(t, polls[i], typeName, rc, opts.full === true);
  });
}

/**
 * A page of targets for a Management list endpoint: `offset`, `limit`, `sort` and `q` from the
 * request (Target fields of reference §5, default sort controllerId:ASC); `within` restricts to one
 * key of a target multi index (`tag`, `assignedDs`, `installedDs`, `targetType`, `updateStatus`).
 */
export async function listTargets(
  deps: TargetViewDeps, tenant: Tenant, req: Request, within?: Within<typeof TARGET>,
): Promise<object> {
  const params = listParams(deps.limits, req.query, targetFields, DEFAULT_TARGET_SORT);
  const result = await queryTargets(deps.store, tenant, { ...params, within }, await evalContext(deps, tenant));
  return pageOf(await renderTargets(deps, tenant, req, result.content), result.total);
}
