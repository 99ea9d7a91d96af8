/**
 * The app for DDI tests: like test/helpers/app.ts, plus tenant configuration seeds (config.yaml
 * `tenants[].config`), the DDI system switches, trusted proxies and quotas; a device client whose
 * paths are relative to `/{tenant}/controller/v1/{controllerId}`; and assignments.
 */
import type { ActionType, MaintenanceWindow } from '../../../src/domain/action.js';
import { TARGET, type TargetRecord } from '../../../src/domain/target.js';
import type { ConfigValue } from '../../../src/domain/tenant-config.js';
import { storeOptions, tenantFor, type App, type StoreKind } from '../../helpers/app.js';
import { ADMIN, ADMIN_HASH, http, startTestServer, type RequestOptions, type TestResponse } from '../../helpers/server.js';

export const GATEWAY_KEY = 'gw-0123456789abcdef';
export const GATEWAY = { authorization: `GatewayToken ${GATEWAY_KEY}` } as const;

export interface DdiOptions {
  /** Tenant configuration values (added to: gateway token on with GATEWAY_KEY, target token on). */
  readonly tenantConfig?: Readonly<Record<string, ConfigValue>>;
  readonly auth?: Partial<Record<'targetToken' | 'gatewayToken' | 'anonymous' | 'certificate', boolean> & { certificateHeaders: '0.9' | '1.x' | 'both' }>;
  readonly trustedProxies?: readonly string[];
  readonly quotas?: Readonly<Record<string, number>>;
  readonly pollFlushMs?: number;
  readonly pollAddressRefreshMs?: number;
  /** ddi.pollLimiter.exemptCidrs (default: loopback and private ranges, so tests over 127.0.0.1 are never paced). */
  readonly exemptCidrs?: readonly string[];
  /** store.redisCacheEntries (Redis stores only). */
  readonly redisCacheEntries?: number;
  /** config.yaml's artifacts section (hot cache, X-Accel-Redirect). */
  readonly artifacts?: {
    readonly hotCacheBytes?: number;
    readonly accelRedirect?: { readonly enabled?: boolean; readonly location?: string };
  };
  /** A second tenant with its own configuration (cross-tenant tests). */
  readonly otherTenant?: { readonly name: string; readonly config: Readonly<Record<string, ConfigValue>> };
}

export interface DdiApp extends App {
  readonly tenantConfig: Readonly<Record<string, ConfigValue>>;
  /** A device client: paths after /{tenant}/controller/v1/{controllerId}; gateway token unless headers say otherwise. */
  device(controllerId: string, headers?: Readonly<Record<string, string>>): DeviceClient;
}

export interface DeviceClient {
  readonly base: string;
  get(path?: string, o?: RequestOptions): Promise<TestResponse>;
  head(path?: string, o?: RequestOptions): Promise<TestResponse>;
  post(path: string, o?: RequestOptions): Promise<TestResponse>;
  put(path: string, o?: RequestOptions): Promise<TestResponse>;
}

export const BASE_TENANT_CONFIG: Readonly<Record<string, ConfigValue>> = {
  'authentication.gatewaytoken.enabled': true,
  'authentication.gatewaytoken.key': GATEWAY_KEY,
  'authentication.targettoken.enabled': true,
};

export async function startDdiApp(kind: StoreKind, opts: DdiOptions = {}): Promise<DdiApp> {
  const tenant = tenantFor(kind, 'D');
  const tenantConfig = { ...BASE_TENANT_CONFIG, ...opts.tenantConfig };
  const admin = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };
  const tenants: unknown[] = [{ name: tenant, users: [admin], config: tenantConfig }];
  if (opts.otherTenant !== undefined) tenants.push({ name: opts.otherTenant.name, users: [admin], config: opts.otherTenant.config });
  const server = await startTestServer(
    {
      tenants,
      ddi: {
        authentication: opts.auth ?? {},
        ...(opts.pollFlushMs === undefined ? {} : { pollFlushMs: opts.pollFlushMs }),
        ...(opts.pollAddressRefreshMs === undefined ? {} : { pollAddressRefreshMs: opts.pollAddressRefreshMs }),
        ...(opts.exemptCidrs === undefined ? {} : { pollLimiter: { exemptCidrs: [...opts.exemptCidrs] } }),
      },
      server: { trustedProxies: [...(opts.trustedProxies ?? [])] },
      quotas: opts.quotas ?? {},
      ...(opts.artifacts === undefined ? {} : { artifacts: opts.artifacts }),
      ...(opts.redisCacheEntries === undefined ? {} : { store: { redisCacheEntries: opts.redisCacheEntries } }),
    } as never,
    storeOptions(kind),
  );
  const client = http(server.url);
  const withAdmin = (o?: RequestOptions): RequestOptions => ({ auth: ADMIN, ...o });
  const app: DdiApp = {
    url: server.url,
    tenant,
    server,
    store: server.server.store,
    mgmt: {
      request: (m, p, o) => client.request(m, p, withAdmin(o)),
      get: (p, o) => client.get(p, withAdmin(o)),
      head: (p, o) => client.head(p, withAdmin(o)),
      delete: (p, o) => client.delete(p, withAdmin(o)),
      post: (p, o) => client.post(p, withAdmin(o)),
      put: (p, o) => client.put(p, withAdmin(o)),
      patch: (p, o) => client.patch(p, withAdmin(o)),
    },
    anon: client,
    ddi: `/${tenant}/controller/v1`,
    tenantConfig,
    device(controllerId, headers = GATEWAY) {
      const base = `/${tenant}/controller/v1/${encodeURIComponent(controllerId)}`;
      const h = (o?: RequestOptions): RequestOptions => ({ ...o, headers: { ...headers, ...o?.headers } });
      return {
        base,
        get: (path = '', o) => client.get(base + path, h(o)),
        head: (path = '', o) => client.head(base + path, h(o)),
        post: (path, o) => client.post(base + path, h(o)),
        put: (path, o) => client.put(base + path, h(o)),
      };
    },
  };
  return app;
}

export interface AssignOptions {
  readonly type?: ActionType;
  readonly forcetime?: number;
  readonly weight?: number;
  readonly confirmationRequired?: boolean;
  readonly maintenanceWindow?: MaintenanceWindow;
}

/** Assigns a DS through `POST /rest/v1/targets/{cid}/assignedDS`; returns the new action's id. */
export async function assign(app: DdiApp, controllerId: string, dsId: number, opts: AssignOptions = {}): Promise<number> {
  const res = await app.mgmt.post(`/rest/v1/targets/${encodeURIComponent(controllerId)}/assignedDS`, { json: { id: dsId, ...opts } });
  if (res.status !== 200) throw new Error(`assignment failed: ${res.status} ${res.text}`);
  const id = res.json<{ assignedActions: { id: number }[] }>().assignedActions[0]?.id;
  if (id === undefined) throw new Error(`assignment created no action: ${res.text}`);
  return id;
}

export async function targetOf(app: App, controllerId: string): Promise<TargetRecord> {
  const id = await app.store.lookup(app.tenant, TARGET, 'controllerId', controllerId.toLowerCase());
  const t = id === undefined ? undefined : await app.store.get<TargetRecord>(app.tenant, TARGET, id);
  if (t === undefined) throw new Error(`no target ${controllerId}`);
  return t.value;
}

/** A feedback body. */
export function feedback(execution: string, finished = 'none', extra: Record<string, unknown> = {}): { json: unknown } {
  return { json: { status: { execution, result: { finished }, ...extra } } };
}

/** How many requests of a route (its metrics name, e.g. 'ddi GET /') its express lane answered, from /metrics. */
export async function laneCount(app: DdiApp, route: string): Promise<number> {
  const text = (await app.anon.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith('http_express_lane_requests_total{') && l.includes(`route="${route}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
