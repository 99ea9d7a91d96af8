/**
 * The composition root, in one order: the store opened with the schema of every record kind, the
 * shared services on it (tenant configuration, the DMF link, the actor runtime and the effects
 * dispatcher, artifacts: src/app/services.ts), the modules built on those (src/app/modules.ts) and
 * started, then the HTTP server listening; and the orderly shutdown (stop accepting, let in-flight
 * requests finish, stop modules so they flush, release the services, close the store).
 */
import type { Logger } from 'pino';
import type { AppModule } from '../module.js';
import { SCHEMA } from './schema.js';
import { createServices, type Services } from './services.js';
import { apiDocRoutes } from '../apidoc/routes.js';
import { buildModules, type ModuleFactory } from './modules.js';
import { verifyPasswordAsync, type Config } from '../config/index.js';
import { startHttpServer } from '../http/server.js';
import type { Route } from '../http/types.js';
import { loadUws } from '../http/uws.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { platformRoutes } from './platform-routes.js';
import { registerStatusGauges } from '../observability/status-gauges.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/port.js';

export interface ServerOverrides {
  /** Extra routes after the modules' (tests register small probe routes here). */
  readonly routes?: readonly Route[];
  /** Replaces the module registry (tests). */
  readonly modules?: ModuleFactory;
  readonly logger?: Logger;
  /**
   * 'primary' (default) starts every module; 'http-only' (the worker threads of src/app/workers.ts)
   * skips the start() and stop() of modules marked primaryOnly.
   */
  readonly role?: 'primary' | 'http-only';
  /** False when worker threads share the port (src/app/workers.ts); default true. */
  readonly exclusive?: boolean;
  /** What GET /metrics shows (default: this loop's registry); src/app/workers.ts sums all loops. */
  readonly renderMetrics?: (own: Metrics) => Promise<string>;
}

export interface RunningServer {
  /** http://host:port as configured, e.g. http://0.0.0.0:8080. */
  readonly url: string;
  readonly port: number;
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Every route the server registered, in order (the OpenAPI document's source; tests compare the two). */
  readonly routes: readonly Route[];
  /** Idempotent. graceMs bounds the wait for in-flight requests (default 10 s). */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(config: Config, overrides: ServerOverrides = {}): Promise<RunningServer> {
  const logger = overrides.logger ?? createLogger(config.log.level);
  loadUws(); // refuse to start before touching the store when the native binding is missing
  const metrics = createMetrics();
  if (overrides.role !== 'http-only') await warnAboutWeakPasswords(config, logger);

  const store = await openStore({
    kind: config.store.kind,
    redisUrl: config.store.redisUrl,
    redisCluster: config.store.redisCluster,
    redis: {
      waitReplicas: config.store.redisWaitReplicas, cacheEntries: config.store.redisCacheEntries,
      // once per process: the primary loop's store checks, the other loops' open the same Redis
      ...(overrides.role === 'http-only' ? {} : { onWarning: (message: string) => logger.warn(message) }),
    },
    schema: SCHEMA,
  });
  let services: Services;
  let modules: readonly AppModule[];
  try {
    services = createServices({ config, logger, metrics }, store);
    modules = (overrides.modules ?? buildModules)(services);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  const startable = overrides.role === 'http-only' ? modules.filter((m) => m.primaryOnly !== true) : modules;
  // counted from the store when scraped: by the primary loop alone, so the loops' sum counts each once
  if (overrides.role !== 'http-only') registerStatusGauges(metrics.registry, store, () => services.tenants.list());
  let closing = false;

  const started: AppModule[] = [];
  const stopModules = async (): Promise<void> => {
    for (const m of [...started].reverse()) {
      try {
        await m.stop?.();
      } catch (err) {
        logger.error({ err, module: m.name }, 'module failed to stop cleanly');
      }
    }
    await services.close();
  };
  try {
    for (const m of startable) {
      await m.start?.();
      started.push(m);
    }
    const routes: Route[] = [
      ...platformRoutes({ store, metrics: shownMetrics(metrics, overrides.renderMetrics), closing: () => closing }),
      ...modules.flatMap((m) => m.routes),
      ...(overrides.routes ?? []),
    ];
    routes.push(...apiDocRoutes(() => routes, { title: 'peregrine', version: 'v1' }));
    const http = await startHttpServer({ config, routes, logger, metrics, exclusive: overrides.exclusive });
    logger.info({ store: config.store.kind, role: overrides.role ?? 'primary', modules: startable.map((m) => m.name), port: http.port }, 'server started');

    let closed: Promise<void> | undefined;
    return {
      url: http.url,
      port: http.port,
      config,
      store,
      logger,
      metrics,
      routes,
      close(graceMs = 10_000) {
        closed ??= (async () => {
          closing = true;
          await http.close(graceMs);
          await stopModules();
          await store.close();
          logger.info('server stopped');
        })();
        return closed;
      },
    };
  } catch (err) {
    await stopModules();
    await store.close().catch(() => undefined);
    throw err;
  }
}

function shownMetrics(own: Metrics, render: ServerOverrides['renderMetrics']): Metrics {
  return render === undefined ? own : { ...own, render: () => render(own) };
}

/** The shipped config.yaml has admin/admin: say so loudly until someone changes it. */
async function warnAboutWeakPasswords(config: Config, logger: Logger): Promise<void> {
  const checks = config.tenants.flatMap((t) =>
    t.users.map(async (u) => {
      if (await verifyPasswordAsync(u.username, u.password)) {
        logger.warn({ tenant: t.name, username: u.username }, `user ${u.username} of tenant ${t.name} has its username as password; change it in config.yaml`);
      }
    }),
  );
  await Promise.all(checks);
}
