/**
 * Prometheus metrics, one registry per server instance (tests run several servers in one process).
 * The request hot path touches no label objects: the server asks once per route for a
 * `RouteMetrics` and records through cached children keyed by a number (status * 16 + method).
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, type Gauge } from 'prom-client';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'OTHER'] as const;

export interface RouteMetrics {
  /** method: index into METHODS. */
  observe(methodIndex: number, status: number, seconds: number): void;
}

export interface Metrics {
  readonly registry: Registry;
  forRoute(route: string): RouteMetrics;
  storeError(): void;
  /** Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the reply, by route pattern',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'store_errors_total',
    help: 'Requests that failed because the store was unavailable',
    registers: [registry],
  });
  const routes = new Map<string, RouteMetrics>();

  function forRoute(route: string): RouteMetrics {
    const existing = routes.get(route);
    if (existing !== undefined) return existing;
    const timer = duration.labels(route);
    const counters = new Map<number, ReturnType<typeof requests.labels>>();
    const made: RouteMetrics = {
      observe(methodIndex, status, seconds) {
        const key = status * 16 + methodIndex;
        let counter = counters.get(key);
        if (counter === undefined) {
          counter = requests.labels(route, METHODS[methodIndex] ?? 'OTHER', String(status));
          counters.set(key, counter);
        }
        counter.inc();
        timer.observe(seconds);
      },
    };
    routes.set(route, made);
    return made;
  }

  return {
    registry,
    forRoute,
    storeError: () => storeErrors.inc(),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** For modules that want their own gauges and counters on the same registry. */
export type { Counter, Gauge, Histogram };
