/**
 * The app for deployment tests: the real server on either store with the core, deployments and
 * scheduler modules (their own Services, so tests can set tenant configuration and run scheduler
 * passes), Management client logged in as admin, and the seed helpers' App shape.
 */
import { coreModule } from '../../../src/app/core-module.js';
import type { AppModule } from '../../../src/module.js';
import type { Services } from '../../../src/app/services.js';
import { deploymentsModule } from '../../../src/mgmt/deployments/index.js';
import { schedulerModule, type SchedulerModule, type SchedulerSettings } from '../../../src/scheduler/index.js';
import { storeOptions, tenantFor, type App, type StoreKind } from '../../helpers/app.js';
import { ADMIN, ADMIN_HASH, http, startTestServer, type RequestOptions } from '../../helpers/server.js';

export interface DeployApp extends App {
  readonly services: Services;
  readonly scheduler: SchedulerModule;
  /** Sets tenant configuration values as PUT /system/configs would. */
  setConfig(values: Record<string, unknown>): Promise<void>;
}

export interface DeployAppOptions {
  readonly quotas?: Record<string, number>;
  readonly scheduler?: Partial<SchedulerSettings>;
  readonly extraModules?: (services: Services) => AppModule[];
}

export async function startDeployApp(kind: StoreKind, opts: DeployAppOptions = {}): Promise<DeployApp> {
  const tenant = tenantFor(kind, 'T');
  let services: Services | undefined;
  let scheduler: SchedulerModule | undefined;
  const server = await startTestServer({
    tenants: [{
      name: tenant,
      users: [
        { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] },
        { username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET'] },
        { username: 'updater', password: ADMIN_HASH, permissions: ['READ_TARGET', 'UPDATE_TARGET'] },
      ],
    }],
    ...(opts.quotas === undefined ? {} : { quotas: opts.quotas }),
  }, {
    ...storeOptions(kind),
    modules: (built) => {
      services = built;
      scheduler = schedulerModule(services, { enabled: false, ...opts.scheduler });
      return [coreModule(services), deploymentsModule(services), scheduler, ...(opts.extraModules?.(services) ?? [])];
    },
  });
  const client = http(server.url);
  const s = services as unknown as Services;
  const auth = (o?: RequestOptions): RequestOptions => ({ auth: ADMIN, ...o });
  return {
    url: server.url,
    tenant,
    server,
    store: server.server.store,
    mgmt: {
      request: (method, path, o) => client.request(method, path, auth(o)),
      get: (path, o) => client.get(path, auth(o)),
      head: (path, o) => client.head(path, auth(o)),
      delete: (path, o) => client.delete(path, auth(o)),
      post: (path, o) => client.post(path, auth(o)),
      put: (path, o) => client.put(path, auth(o)),
      patch: (path, o) => client.patch(path, auth(o)),
    },
    anon: client,
    ddi: `/${tenant}/controller/v1`,
    services: s,
    scheduler: scheduler as unknown as SchedulerModule,
    setConfig: async (values) => {
      await s.tenantConfig.set(tenant, values, 'admin', Date.now());
    },
  };
}

/** The reader account (READ_TARGET only). */
export const READER: readonly [string, string] = ['reader', 'admin'];
/** READ_TARGET and UPDATE_TARGET: what hawkBit asks for deleting actions (DeploymentManagement). */
export const UPDATER: readonly [string, string] = ['updater', 'admin'];
