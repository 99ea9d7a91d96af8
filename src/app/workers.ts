/**
 * `server.workers: N` (`--workers N`): N uWebSockets.js event loops serving one port.
 *
 * The main thread runs the primary loop: a whole server (src/app/server.ts) with every module. N-1
 * worker threads (src/app/loop.worker.ts) each run an 'http-only' one: their own store connection,
 * caches, poll recorder and effects consumer (a request waits for its own loop to dispatch the
 * effects it committed), without the modules marked primaryOnly (the scheduler). The main thread
 * is the primary rather than worker 0 because it owns the signals, the listening line and the exit
 * code: the once-per-process work lives and dies with the process, and no thread only supervises.
 * The effects dispatcher and the DMF connector run on every loop, as in separate processes: the
 * dispatcher is one consumer of the shared consumer group (the loops tell each other the effects
 * they handled over a BroadcastChannel, so a request settles whichever loop's took them), and
 * it publishes the DMF messages of the effects it takes, so its loop needs a connector of its own.
 *
 * The port: uSockets shares a port among sockets that all set SO_REUSEPORT, and the kernel spreads
 * new connections over them. An exclusive listen first proves the port free of other programs, the
 * process then takes the port's lock (src/app/port-lock.ts: a second peregrine, even one started at the
 * same moment, is refused as with one loop), then every loop listens non-exclusively. uWS's child-app descriptors,
 * which would keep a single exclusive listener, are missing from the uwebsockets 3.0.6 binding for Node 20.
 *
 * The memory store lives in one thread's heap, so with it one loop runs and the start says so.
 * A worker that fails to start fails the start with its message. One that dies later is logged and
 * `onLoopDied` runs (the CLI shuts down and exits 1): a supervisor (systemd, Kubernetes) restarts the
 * whole process, rather than this one restarting a loop whose caches and in-flight requests are gone.
 *
 * GET /metrics on any loop shows the request metrics summed over all loops and the process and
 * Node.js runtime metrics of the main thread (prom-client's AggregatorRegistry.aggregate).
 */
import { Worker } from 'node:worker_threads';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Config } from '../config/index.js';
import { listen, portInUse } from '../http/server.js';
import { loadUws } from '../http/uws.js';
import type { Metrics } from '../observability/metrics.js';
import { lockPort } from './port-lock.js';
import { startServer, type RunningServer, type ServerOverrides } from './server.js';

/** Messages between the main thread and a loop worker. */
export type ToWorker =
  | { readonly type: 'close'; readonly graceMs: number }
  | { readonly type: 'metrics'; readonly id: number }
  | { readonly type: 'render'; readonly id: number; readonly text: string };
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'dying'; readonly message: string }
  | { readonly type: 'metrics'; readonly id: number; readonly json: MetricJson }
  | { readonly type: 'render'; readonly id: number };
type MetricJson = MetricObjectWithValues<MetricValue<string>>[];
export interface LoopData {
  readonly config: Config;
  readonly loop: number;
}

export interface RunningLoops {
  readonly server: RunningServer;
  /** Event loops serving the port (1 with the memory store whatever server.workers says). */
  readonly loops: number;
  /** Idempotent: closes every loop (each flushes its poll recorder), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export async function startLoops(config: Config, overrides: ServerOverrides, onLoopDied: (err: Error) => void): Promise<RunningLoops> {
  const wanted = config.server.workers;
  if (wanted === 1 || config.store.kind === 'memory') {
    const server = await startServer(config, overrides);
    if (wanted > 1) {
      server.logger.warn({ workers: wanted }, `server.workers is ${wanted} but the memory store lives in one thread: serving with 1 event loop`);
    }
    return { server, loops: 1, close: (graceMs) => server.close(graceMs) };
  }
  const { host } = config.server;
  const port = await provePortFree(host, config.server.port);
  // held from before the first shared listen until every loop has closed: a second server started at
  // the same moment passed the probe too, and is refused here
  const lock = await lockPort(port, () => portInUse(host, port));
  const shared: Config = { ...config, server: { ...config.server, port } };
  const workers: LoopWorker[] = [];
  let server: RunningServer | undefined;
  try {
    server = await startServer(shared, {
      ...overrides,
      exclusive: false,
      renderMetrics: async (own) => aggregate(own, workers),
    });
    for (let loop = 1; loop < wanted; loop++) {
      workers.push(await LoopWorker.start({ config: shared, loop }, server.metrics, workers, onLoopDied));
    }
  } catch (err) {
    await Promise.all([server?.close(0), ...workers.map((w) => w.close(0))]);
    await lock.release();
    throw err;
  }
  const primary = server;
  primary.logger.info({ loops: wanted }, `serving with ${wanted} event loops (the main thread and ${wanted - 1} worker threads)`);
  let closed: Promise<void> | undefined;
  return {
    server: primary,
    loops: wanted,
    close(graceMs) {
      closed ??= Promise.all([...workers.map((w) => w.close(graceMs)), primary.close(graceMs)]).then(() => lock.release());
      return closed;
    },
  };
}

/** An exclusive listen that is let go at once: throws the usual message when the port is in use. Returns the port (port 0: the one chosen). */
async function provePortFree(host: string, port: number): Promise<number> {
  const uws = loadUws();
  const app = uws.App();
  const socket = await listen(app, host, port, { exclusive: true });
  const chosen = uws.us_socket_local_port(socket);
  uws.us_listen_socket_close(socket);
  app.close();
  return chosen;
}

async function aggregate(own: Metrics, workers: readonly LoopWorker[]): Promise<string> {
  const theirs = await Promise.all(workers.map((w) => w.metrics()));
  // process_* and nodejs_* describe the whole process (or the main thread): counted once
  const loopOnly = theirs.map((json) => json.filter((m) => !m.name.startsWith('process_') && !m.name.startsWith('nodejs_')));
  return AggregatorRegistry.aggregate([await own.registry.getMetricsAsJSON(), ...loopOnly]).metrics();
}

class LoopWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, (json: MetricJson) => void>();
  #nextId = 0;
  #closing: Promise<void> | undefined;
  #exited = false;
  #dying: string | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.once('exit', () => (this.#exited = true));
  }

  static async start(data: LoopData, primary: Metrics, all: readonly LoopWorker[], onDied: (err: Error) => void): Promise<LoopWorker> {
    const worker = new Worker(new URL('./loop.worker.js', import.meta.url), { workerData: data });
    const loop = new LoopWorker(worker);
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number): void => reject(new Error(`event loop ${data.loop} (worker thread) exited with code ${code} while starting`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.on('message', (msg: FromWorker) => {
        if (msg.type === 'ready') {
          worker.off('error', reject).off('exit', onExit);
          resolve();
        } else if (msg.type === 'failed') reject(new Error(`event loop ${data.loop} (worker thread) failed to start: ${msg.message}`));
        else if (msg.type === 'metrics') loop.#pending.get(msg.id)?.(msg.json);
        else if (msg.type === 'dying') loop.#dying = msg.message;
        else if (msg.type === 'render') {
          void aggregate(primary, all).then((text) => worker.postMessage({ type: 'render', id: msg.id, text } satisfies ToWorker));
        }
      });
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    let error: unknown;
    worker.on('error', (err) => (error = err));
    worker.on('exit', (code) => {
      if (loop.#closing !== undefined) return;
      const why = loop.#dying ?? (error instanceof Error ? error.message : `exit code ${code}`);
      onDied(new Error(`event loop ${data.loop} (worker thread) died: ${why}`, { cause: error }));
    });
    return loop;
  }

  metrics(): Promise<MetricJson> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done([]), 5000); // a loop that is closing or stuck shows nothing rather than blocking the scrape
      const done = (json: MetricJson): void => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(json);
      };
      this.#pending.set(id, done);
      this.#worker.postMessage({ type: 'metrics', id } satisfies ToWorker);
    });
  }

  close(graceMs = 10_000): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      if (this.#exited) return resolve();
      this.#worker.once('exit', () => resolve());
      this.#worker.postMessage({ type: 'close', graceMs } satisfies ToWorker);
    });
    return this.#closing;
  }
}
