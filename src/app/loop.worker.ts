/**
 * One http-only event loop in a worker thread (src/app/workers.ts): a server without the primaryOnly
 * modules, listening non-exclusively on the port the main thread proved free. Answers the main
 * thread's close and metrics requests; asks it for the summed metrics when GET /metrics lands here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../observability/logger.js';
import { startServer, type RunningServer } from './server.js';
import type { FromWorker, LoopData, ToWorker } from './workers.js';

const port = parentPort;
if (port === null) throw new Error('src/app/loop.worker.ts runs as a worker thread of src/app/workers.ts');
const { config, loop } = workerData as LoopData;
const send = (msg: FromWorker): void => port.postMessage(msg);
const rendering = new Map<number, (text: string) => void>();
let nextId = 0;

const logger = createLogger(config.log.level).child({ loop });
process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection'));
// A thread that ends with its uWS sockets open aborts the whole process: close them, tell the main thread, then end.
process.on('uncaughtException', (err) => {
  logger.fatal({ err }, 'uncaught exception: this event loop stops');
  send({ type: 'dying', message: err.message });
  void (server?.close(0) ?? Promise.resolve()).finally(() => process.exit(1));
});

let server: RunningServer | undefined;
port.on('message', (msg: ToWorker) => {
  if (msg.type === 'render') rendering.get(msg.id)?.(msg.text);
  else if (msg.type === 'metrics') {
    void (server?.metrics.registry.getMetricsAsJSON() ?? Promise.resolve([])).then((json) => send({ type: 'metrics', id: msg.id, json }));
  } else {
    void (server?.close(msg.graceMs) ?? Promise.resolve()).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'event loop failed to close cleanly');
        process.exit(1);
      },
    );
  }
});

try {
  server = await startServer(config, {
    logger,
    role: 'http-only',
    exclusive: false,
    renderMetrics: () =>
      new Promise((resolve) => {
        const id = nextId++;
        rendering.set(id, (text) => {
          rendering.delete(id);
          resolve(text);
        });
        send({ type: 'render', id });
      }),
  });
  send({ type: 'ready' });
} catch (err) {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
