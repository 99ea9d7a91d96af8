/**
 * Routes for operators and orchestrators, without authentication:
 * - GET /health: 200 {"status":"UP"} while the process serves requests (liveness);
 * - GET /ready: 200 when the store answers a ping, else 503 with the error body (readiness);
 * - GET /metrics: Prometheus text.
 */
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import type { Route } from '../http/types.js';
import { StoreUnavailableError, type Store } from '../store/port.js';
import type { Metrics } from '../observability/metrics.js';

export interface PlatformDeps {
  readonly store: Pick<Store, 'ping'>;
  readonly metrics: Metrics;
  readonly closing: () => boolean;
}

const UP = { status: 200, json: { status: 'UP' } } as const;
const STATUS = z.looseObject({ status: z.literal('UP') });

export function platformRoutes(deps: PlatformDeps): Route[] {
  return [
    { method: 'GET', path: '/health', name: 'health', handler: () => UP, doc: { summary: 'Liveness', response: STATUS } },
    {
      method: 'GET',
      path: '/ready',
      name: 'ready',
      doc: { summary: 'Readiness: 200 while the store answers, else 503', response: STATUS },
      handler: async () => {
        if (deps.closing()) throw new AppError('SHUTTING_DOWN', 'The server is shutting down.');
        try {
          await deps.store.ping();
        } catch (err) {
          throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(`store ping failed: ${String(err)}`, { cause: err });
        }
        return UP;
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      name: 'metrics',
      produces: 'other',
      doc: { summary: 'Prometheus metrics', response: { status: 200, contentType: 'text/plain' } },
      handler: async () => ({ status: 200, headers: { 'Content-Type': deps.metrics.contentType }, body: await deps.metrics.render() }),
    },
  ];
}
