/**
 * The whole application for API tests: the real server (memory store, or the shared test Redis with a
 * tenant of its own so parallel files never collide) plus a Management client logged in as admin.
 * Run a suite on both stores with `describe.each(STORES)('%s store', (kind) => ...)`.
 */
import { inject } from 'vitest';
import type { ConfigInput } from '../../src/config/index.js';
import type { Store } from '../../src/store/port.js';
import { uniqueTenant } from './redis.js';
import { ADMIN, ADMIN_HASH, http, startTestServer, type DeepPartial, type RequestOptions, type TestServer } from './server.js';

export const STORES = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORES)[number];

export interface App {
  readonly url: string;
  /** The tenant as configured (DDI paths use it; the server stores it upper-case). */
  readonly tenant: string;
  readonly server: TestServer;
  readonly store: Store;
  /** fetch client with admin's Basic credentials. */
  readonly mgmt: ReturnType<typeof http>;
  /** fetch client without credentials (DDI, auth tests). */
  readonly anon: ReturnType<typeof http>;
  /** Path prefix of this tenant's DDI API: /<tenant>/controller/v1 */
  readonly ddi: string;
}

export async function startApp(kind: StoreKind = 'memory', overrides: DeepPartial<ConfigInput> = {}, extraUsers: unknown[] = []): Promise<App> {
  const tenant = kind === 'redis' ? uniqueTenant('T').toUpperCase() : 'DEFAULT';
  const server = await startTestServer(
    { tenants: [{ name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }, ...extraUsers] }], ...overrides } as DeepPartial<ConfigInput>,
    kind === 'redis' ? { redisUrl: inject('redisUrl') } : {},
  );
  const client = http(server.url);
  return {
    url: server.url,
    tenant,
    server,
    store: server.server.store,
    mgmt: withAuth(client, ADMIN),
    anon: client,
    ddi: `/${tenant}/controller/v1`,
  };
}

/** The same client, sending admin's credentials unless a request names others. */
export function withAuth(client: ReturnType<typeof http>, auth: readonly [string, string]): ReturnType<typeof http> {
  const w = (o?: RequestOptions): RequestOptions => ({ auth, ...o });
  return {
    request: (method, path, o) => client.request(method, path, w(o)),
    get: (path, o) => client.get(path, w(o)),
    head: (path, o) => client.head(path, w(o)),
    delete: (path, o) => client.delete(path, w(o)),
    post: (path, o) => client.post(path, w(o)),
    put: (path, o) => client.put(path, w(o)),
    patch: (path, o) => client.patch(path, w(o)),
  };
}
