/**
 * Who is calling a DDI route: the tenant (case-insensitive in the path, canonical upper case), the
 * controller id, the target (when known), the tenant's configuration and the authenticated mode.
 * The route's authenticator resolves it once and puts the DdiPrincipal on the request; handlers read
 * the rest with `device(req)`.
 * @see spec 5; reference §1.1 (notes), §1.2
 */
import { isIP } from 'node:net';
import type { DdiDeps } from './deps.js';
import { AppError, notFound } from '../domain/errors.js';
import { canonicalTenant, isValidControllerId } from '../domain/ids.js';
import type { TargetRecord } from '../domain/target.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { Tenants } from '../tenancy/registry.js';
import { findTarget, peekTarget, registerController, type RegisterDeps } from '../device/registration.js';
import type { Authenticator, DdiPrincipal, Request } from '../http/types.js';
import { MISS, type Reads } from '../store/port.js';
import { authenticateDevice, type AuthSwitches, type DdiMode } from './auth.js';

export interface Device {
  /** Canonical (upper-case) tenant. */
  readonly tenant: string;
  /** The tenant as the client wrote it in the path (links repeat it). */
  readonly pathTenant: string;
  readonly controllerId: string;
  readonly config: TenantConfigView;
  readonly principal: DdiPrincipal;
  /** Undefined when no target has this controller id (yet). */
  readonly target: TargetRecord | undefined;
}

const TENANT = /^[A-Za-z0-9_-]{1,64}$/;

/** The device of a request that passed a DDI authenticator. */
export function device(req: Request): Device {
  const d = req.locals;
  if (!(d instanceof DeviceInfo)) throw new Error('DDI route without the DDI authenticator');
  return d;
}

/** What the authenticator resolved, carried on the request to the handler. */
class DeviceInfo implements Device {
  constructor(
    readonly tenant: string,
    readonly pathTenant: string,
    readonly controllerId: string,
    readonly config: TenantConfigView,
    readonly principal: DdiPrincipal,
    readonly target: TargetRecord | undefined,
  ) {}
}

/** The known target, or 404 as hawkBit answers for every endpoint but the two that register. */
export function requireTarget(d: Device): TargetRecord {
  if (d.target === undefined) throw notFound('Target', d.controllerId);
  return d.target;
}

/**
 * The authenticator of the DDI routes. It finds the tenant's settings and the target through the poll
 * cache, which the store keeps coherent (this process's writes at once, other processes' when Redis's
 * invalidation arrives): a device's write is then checked against its action read fresh and committed
 * with compare-and-set, so a target a few milliseconds old changes nothing but the cost.
 */
export function deviceAuthenticator(services: DdiDeps): Authenticator {
  const known = services.tenants;
  const system: AuthSwitches = services.ctx.config.ddi.authentication;
  // one frozen principal per tenant and mode, found without building a key string per request
  const principals = new Map<string, Map<DdiMode, DdiPrincipal>>();
  const principalOf = (tenant: string, mode: DdiMode): DdiPrincipal => {
    let byMode = principals.get(tenant);
    if (byMode === undefined) principals.set(tenant, (byMode = new Map<DdiMode, DdiPrincipal>()));
    let p = byMode.get(mode);
    if (p === undefined) byMode.set(mode, (p = Object.freeze({ kind: 'ddi' as const, tenant, mode })));
    return p;
  };
  const decide = (req: Request, where: Where, config: TenantConfigView, target: TargetRecord | undefined): DdiPrincipal => {
    const outcome = authenticateDevice({
      headers: req.headers, fromTrustedProxy: req.fromTrustedProxy, controllerId: where.controllerId,
      securityToken: target?.securityToken, config, system,
    });
    if (!outcome.ok) throw new AppError('UNAUTHORIZED', outcome.reason);
    const principal = principalOf(where.tenant, outcome.mode);
    req.locals = new DeviceInfo(where.tenant, where.pathTenant, where.controllerId, config, principal, target);
    return principal;
  };
  const slow = async (req: Request, where: Where, reads: Reads): Promise<DdiPrincipal> => {
    const config = services.tenantConfig.cachedView(where.tenant) ?? (await services.tenantConfig.view(where.tenant));
    return decide(req, where, config, await findTarget(reads, where.tenant, where.controllerId));
  };
  // The poll hot path: with the tenant's settings and the target in the cache, no promise is made.
  const { cached } = services.store;
  const onCached: Authenticator = (req) => {
    const where = locate(req, known);
    const config = services.tenantConfig.cachedView(where.tenant);
    const target = config === undefined ? MISS : peekTarget(cached, where.tenant, where.controllerId);
    if (config === undefined || target === MISS) return slow(req, where, cached);
    return decide(req, where, config, target);
  };
  return onCached;
}

interface Where {
  readonly tenant: string;
  readonly pathTenant: string;
  readonly controllerId: string;
}

/** The tenant and controller id of a DDI path, checked: 404 for an unknown tenant, 400 for a bad id. */
function locate(req: Request, known: Pick<Tenants, 'has'>): Where {
  const pathTenant = req.params['tenant'] ?? '';
  const tenant = knownTenant(pathTenant, known);
  if (tenant === undefined) throw new AppError('NOT_FOUND', `Tenant '${pathTenant}' does not exist.`);
  const controllerId = req.params['controllerId'] ?? '';
  if (!isValidControllerId(controllerId)) {
    throw new AppError('BAD_PARAMETER', "path parameter controllerId must be 1-256 characters without whitespace, control characters or '/'");
  }
  return { tenant, pathTenant, controllerId };
}

/** The canonical tenant a DDI path names, or undefined when it names none of `known`. */
export function knownTenant(pathTenant: string, known: Pick<Tenants, 'has'>): string | undefined {
  const tenant = canonicalTenant(pathTenant);
  // the ASCII check keeps look-alikes out (toUpperCase maps 'ſ' to 'S'): links repeat the path tenant
  return known.has(tenant) && TENANT.test(pathTenant) ? tenant : undefined;
}

/**
 * Plug and play (reference §4.3): a target unknown at its first poll is created `registered`; a
 * known `unknown` target becomes `registered`. Only modes that do not need the target's own token
 * reach here without a target (a target token cannot name an unknown target).
 */
export function registerTarget(deps: RegisterDeps, d: Device, address: string | null, now: number): Promise<TargetRecord> {
  return registerController(deps, d.tenant, d.controllerId, d.target, { address }, now);
}

/** The device's address as hawkBit stores it (`http://<ip>`): the first X-Forwarded-For hop behind a trusted proxy. */
export function addressOf(req: Request): string | null {
  return deviceAddress(req.remoteAddress, req.fromTrustedProxy ? req.headers['x-forwarded-for'] : undefined);
}

/** The device's IP as text: the peer's, or the first X-Forwarded-For hop (when an IP) behind a trusted proxy. */
export function clientIp(req: Request): string {
  return clientIpOf(req.remoteAddress, req.fromTrustedProxy ? req.headers['x-forwarded-for'] : undefined);
}

/** The peer, or the first hop of `forwardedFor` (a trusted proxy's header) when that is an IP. */
export function clientIpOf(peer: string, forwardedFor: string | undefined): string {
  const forwarded = forwardedFor?.split(',')[0]?.trim();
  return forwarded !== undefined && isIP(forwarded) !== 0 ? forwarded : peer;
}

/** `http://<ip>` of the peer, or of the first hop of `forwardedFor` (a trusted proxy's header) when that is an IP. */
export function deviceAddress(peer: string, forwardedFor: string | undefined): string | null {
  const ip = clientIpOf(peer, forwardedFor);
  const family = isIP(ip);
  if (family === 0) return null;
  return family === 6 ? `http://[${ip}]` : `http://${ip}`;
}
