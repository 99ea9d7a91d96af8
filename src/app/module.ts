/**
 * What a feature module (DDI, Management resources, scheduler, ...) hands the composition root.
 * Modules are built before the store is opened, because the store needs every module's schema;
 * handlers and start() read `ctx.store`, which is set by then.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Route } from '../http/types.js';
import type { Metrics } from '../observability/metrics.js';
import type { Schema, Store } from '../store/port.js';

export interface ModuleContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The opened store. Reading it while modules are being built throws; use it in handlers and start(). */
  readonly store: Store;
}

export interface AppModule {
  /** For logs and error messages. */
  readonly name: string;
  /** The record kinds this module persists; kinds must be unique across modules. */
  readonly schema: Schema;
  readonly routes: readonly Route[];
  /**
   * start() and stop() run in the primary event loop only (the main thread; src/workers.ts), for work
   * one loop per process is enough for; the routes serve on every loop.
   */
  readonly primaryOnly?: boolean;
  /** Runs after the store is open, before the server listens (warm caches, start loops). */
  start?(): Promise<void>;
  /** Runs on shutdown after in-flight requests finished, before the store closes (flush write-behind buffers). */
  stop?(): Promise<void>;
}

export type ModuleFactory = (ctx: ModuleContext) => readonly AppModule[];
