/**
 * What a feature module (DDI, Management resources, scheduler, ...) hands the composition root.
 * Modules are built after the store is open (src/app/server.ts): a module may use every dependency it is
 * given at once.
 */
import type { Logger } from 'pino';
import type { Config } from './config/index.js';
import type { Route } from './http/types.js';
import type { Metrics } from './observability/metrics.js';

export interface ModuleContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export interface AppModule {
  /** For logs and error messages. */
  readonly name: string;
  readonly routes: readonly Route[];
  /**
   * start() and stop() run in the primary event loop only (the main thread; src/app/workers.ts), for work
   * one loop per process is enough for; the routes serve on every loop.
   */
  readonly primaryOnly?: boolean;
  /** Runs before the server listens (warm caches, start loops). */
  start?(): Promise<void>;
  /** Runs on shutdown after in-flight requests finished, before the store closes (flush write-behind buffers). */
  stop?(): Promise<void>;
}
