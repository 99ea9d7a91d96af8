import type { TargetRecord } from '../../domain/target.js';
import { link, segment, type Link } from '../../http/links.js';
import type { Request } from '../../http/types.js';
import type { PollRecord } from '../../store/port.js';
import { auditJson } from '../kit/hal.js';
import { addressOf } from './target-fields.js';

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
export function targetJson(t: TargetRecord, poll: PollRecord | undefined, typeName: string | undefined, rc: TargetRenderContext, full: boolean): object {
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
