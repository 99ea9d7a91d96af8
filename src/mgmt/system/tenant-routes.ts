import { z } from 'zod';
import type { ArtifactStorage } from '../../artifacts/index.js';
import { hashPasswordAsync, isPermission } from '../../config/index.js';
import { AppError, notFound } from '../../domain/errors.js';
import { canonicalTenant, TENANT_NAME, TENANT_NAME_EXPECTED, USERNAME, USERNAME_EXPECTED } from '../../domain/ids.js';
import type { MgmtPrincipal, Request, Route } from '../../http/types.js';
import type { RuntimeTenant } from '../../tenancy/directory.js';
import type { TenantAccounts, TenantRegistry } from '../../tenancy/registry.js';
import { readBody } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { pageOf } from '../kit/hal.js';
import { callerOf, pathText } from '../kit/request.js';

/**
 * `/rest/v1/system/admin/tenants`: tenants created and deleted at runtime, for a system administrator
 * (the permission SYSTEM_ADMIN, held by a user of a config.yaml tenant: a runtime tenant's users never
 * administer tenants, even with ALL). hawkBit 0.9 had `DELETE /rest/v1/system/admin/tenants/{tenant}`
 * (SYSTEM_ADMIN, 200 without a body; its data goes) and created a tenant implicitly on its first
 * request; here a tenant is created explicitly, with its first Management users, since a request for
 * an unknown tenant is refused (DDI 404, DMF rejection) rather than creating one.
 * @see reference §10 (`/system/admin/...` in 0.5.0 and 0.9.0), src/tenancy/registry.ts
 */
export interface TenantRouteDeps extends Pick<KitDeps, 'mgmtAuth' | 'now'> {
  readonly tenants: Pick<TenantRegistry, 'create' | 'remove' | 'isConfigured' | 'runtime' | 'accounts'>;
  readonly artifacts: Pick<ArtifactStorage, 'dropTenant'>;
}

const SYSTEM_ADMIN = 'SYSTEM_ADMIN';

const tenantName = z.string().regex(TENANT_NAME, { error: TENANT_NAME_EXPECTED });
const permission = z.string().refine((p) => isPermission(p) && p !== SYSTEM_ADMIN, {
  error: (iss) => (iss.input === SYSTEM_ADMIN ? 'SYSTEM_ADMIN is for users of config.yaml only' : `unknown permission ${JSON.stringify(iss.input)}`),
});
const userBody = z.object({
  username: z.string().regex(USERNAME, { error: USERNAME_EXPECTED }),
  password: z.string().min(8, { error: 'expected at least 8 characters' }).max(1024),
  permissions: z.array(permission).min(1).max(64),
});
const tenantBody = z.object({
  name: tenantName,
  users: z.array(userBody).min(1, { error: 'a tenant needs at least one Management user' }).max(20).superRefine((users, ctx) => {
    const seen = new Set<string>();
    users.forEach((u, i) => {
      if (seen.has(u.username)) ctx.addIssue({ code: 'custom', path: [i, 'username'], message: `duplicate username ${u.username}` });
      seen.add(u.username);
    });
  }),
});

const tenantResponse = z.looseObject({
  name: z.string(),
  source: z.enum(['config', 'runtime']),
  createdAt: z.number().optional(),
  createdBy: z.string().optional(),
  users: z.array(z.object({ username: z.string(), permissions: z.array(z.string()) })),
});

type TenantJson = z.infer<typeof tenantResponse> & { _links: { self: { href: string } } };

function tenantJson(req: Request, t: TenantAccounts, runtime: RuntimeTenant | undefined): TenantJson {
  return {
    name: t.name,
    source: runtime === undefined ? 'config' : 'runtime',
    ...(runtime === undefined ? {} : { createdAt: runtime.createdAt, createdBy: runtime.createdBy }),
    users: t.users.map((u) => ({ username: u.username, permissions: [...u.permissions] })),
    _links: { self: { href: `${req.baseUrl}/rest/v1/system/admin/tenants/${t.name}` } },
  };
}

export function tenantRoutes(deps: TenantRouteDeps): Route[] {
  const auth = deps.mgmtAuth(SYSTEM_ADMIN);
  const registry = deps.tenants;
  /** SYSTEM_ADMIN counts for config.yaml's users only (ALL of a runtime tenant's user includes it too). */
  const admin = (req: Request): MgmtPrincipal => {
    const caller = callerOf(req);
    if (!registry.isConfigured(caller.tenant)) {
      throw new AppError('INSUFFICIENT_PERMISSION', `User ${caller.username} of tenant ${caller.tenant} may not administer tenants: only users of config.yaml's tenants may`);
    }
    return caller;
  };
  const one = (req: Request, name: string): TenantJson => {
    const t = registry.accounts().find((a) => a.name === name);
    if (t === undefined) throw notFound('Tenant', name);
    return tenantJson(req, t, registry.runtime(name));
  };
  const pathTenant = (req: Request): string => canonicalTenant(pathText(req, 'tenant'));
  return [
    {
      method: 'GET', path: '/rest/v1/system/admin/tenants', auth,
      doc: { summary: 'The tenants: config.yaml\'s and the ones created at runtime', response: z.looseObject({ content: z.array(tenantResponse), total: z.number() }) },
      handler: (req) => {
        admin(req);
        const all = registry.accounts().map((t) => tenantJson(req, t, registry.runtime(t.name)));
        return { status: 200, json: pageOf(all, all.length) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/system/admin/tenants', auth,
      doc: {
        summary: 'Create a tenant with its first Management users',
        description: 'The tenant gets the standard module and set types (as a config.yaml tenant does at start) and is served by every '
          + 'instance at once. Passwords are stored as scrypt hashes. 409 when the name is taken (by config.yaml, a runtime tenant, or one being deleted).',
        body: tenantBody, response: { status: 201, schema: tenantResponse },
      },
      handler: async (req) => {
        const caller = admin(req);
        const body = readBody(req, tenantBody);
        const users = await Promise.all(body.users.map(async (u) => ({
          username: u.username, password: await hashPasswordAsync(u.password), permissions: u.permissions,
        })));
        const created = await registry.create({ name: canonicalTenant(body.name), users }, caller.username, deps.now());
        return { status: 201, json: tenantJson(req, created, created) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/system/admin/tenants/:tenant', auth, doc: { response: tenantResponse },
      handler: (req) => {
        admin(req);
        return { status: 200, json: one(req, pathTenant(req)) };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/system/admin/tenants/:tenant', auth,
      doc: {
        summary: 'Delete a runtime tenant and all its data',
        description: 'As hawkBit 0.9: 200 without a body. Its records, effects, journal, poll data (Store.dropTenant) and '
          + 'artifact files go; an instance learns of the deletion when its cached copy of the tenant list is invalidated. 403 for a config.yaml tenant, 404 for an unknown one.',
        response: { status: 200 },
      },
      handler: async (req) => {
        admin(req);
        const tenant = pathTenant(req);
        await registry.remove(tenant);
        await deps.artifacts.dropTenant(tenant);
        return { status: 200 };
      },
    },
  ];
}
