/**
 * The whole application for API tests: the real server (memory store, or the shared test Redis or
 * Redis Cluster with a tenant of its own so parallel files never collide) plus a Management client
 * logged in as admin. Run a suite on every store with `describe.each(STORES)('%s store', (kind) => ...)`.
 */
import { inject } from 'vitest';
import type { ConfigInput } from '../../src/config/index.js';
import type { Store } from '../../src/store/port.js';
import { uniqueTenant } from './redis.js';
import {
  ADMIN, ADMIN_HASH, http, startTestServer, type DeepPartial, type RequestOptions, type TestServer, type TestServerOptions,
} from './server.js';

/**
 * Where API suites run: the memory store, one Redis, and the 3-master Redis Cluster of the global
 * setup. A suite that uses STORES runs on the cluster too; LOCAL_STORES leaves the cluster out (for
 * suites the cluster run does not cover; docs/reference/tests.md says which run where).
 */
export const STORES = ['memory', 'redis', 'cluster'] as const;
export const LOCAL_STORES = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORES)[number];

/** A tenant name: `memoryName` on the memory store, else one no other test uses (files share the Redis). */
export function tenantFor(kind: StoreKind, prefix: string, memoryName = 'DEFAULT'): string {
  return kind === 'memory' ? memoryName : uniqueTenant(prefix).toUpperCase();
}

export type StoreOptions = Pick<TestServerOptions, 'redisUrl' | 'redisCluster'>;

/** The startTestServer options that put the server on this store. */
export function storeOptions(kind: StoreKind): StoreOptions {
  switch (kind) {
    case 'memory':
      return {};
    case 'redis':
      return { redisUrl: inject('redisUrl') };
    case 'cluster':
      return { redisCluster: inject('redisClusterUrls') };
  }
}

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
  return startAppOn(storeOptions(kind), tenantFor(kind, 'T'), overrides, extraUsers);
}

/** The app on a store of the test's own (a private Redis or Redis Cluster), with one tenant. */
export async function startAppOn(
  store: StoreOptions, tenant: string, overrides: DeepPartial<ConfigInput> = {}, extraUsers: unknown[] = [],
): Promise<App> {
  const server = await startTestServer(
    { tenants: [{ name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }, ...extraUsers] }], ...overrides } as DeepPartial<ConfigInput>,
    store,
  );
  return appOf(server, tenant);
}

/** The clients and paths of a started server for one of its tenants. */
export function appOf(server: TestServer, tenant: string): App {
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
