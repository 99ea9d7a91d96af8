/**
 * Prometheus metrics, one registry per server instance (tests run several servers in one process).
 * The request hot path touches no label objects: the server asks once per route for a
 * `RouteMetrics`, which counts into plain numbers (requests keyed by status * 16 + method, latency
 * buckets in an array); prom-client turns them into labelled series only when /metrics is scraped.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'OTHER'] as const;

export interface RouteMetrics {
  /** method: index into METHODS. */
  observe(methodIndex: number, status: number, seconds: number): void;
  /** Counts a request its route's express lane answered (it is observed as well). */
  lane(): void;
  /** Counts a request its route's express lane passed to the generic path. */
  laneMiss(): void;
}

export interface Metrics {
  readonly registry: Registry;
  forRoute(route: string): RouteMetrics;
  storeError(): void;
  /** A request stopped waiting for the effects of its commit after the settle timeout (effects dispatcher). */
  settleTimedOut(): void;
  /** A live event stream (SSE or WebSocket) opened. */
  feedOpened(): void;
  /** A live event stream ended: the client left, the server ended it, or it was dropped as a slow consumer. */
  feedEnded(why: 'client' | 'server' | 'slow'): void;
  /** An action entered this status (a committed change; the finished and failed updates are counted too). */
  actionStatus(status: string): void;
  /** A DDI feedback a device sent and the server took: on a deployment or a cancellation, by its `execution` value. */
  ddiFeedback(kind: 'deployment' | 'cancel', execution: string): void;
  /** Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10] as const;

/** The numbers one route keeps: plain fields and arrays, no labels until a scrape reads them. */
interface RouteCounts {
  readonly route: string;
  /** status * 16 + method index -> answered requests */
  readonly requests: Map<number, number>;
  /** cumulative-free bucket counts (index = first bucket the value fits, last = +Inf) */
  readonly buckets: number[];
  sum: number;
  count: number;
  /** answered by the route's express lane (src/http/lane.ts) */
  lane: number;
  /** passed by the express lane to the generic path */
  laneMisses: number;
}

type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string };

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const counts: RouteCounts[] = [];
  // Read at scrape time only: the request hot path never builds a label object or a hash key.
  registry.registerMetric({
    name: 'http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', type: 'counter',
    aggregator: 'sum',
    get: async () => ({
      name: 'http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', type: 'counter', aggregator: 'sum',
      values: counts.flatMap((c) => [...c.requests].map(([key, value]): MetricValue => ({
        value, labels: { route: c.route, method: METHODS[key % 16] ?? 'OTHER', status: Math.floor(key / 16) },
      }))),
    }),
    reset: () => counts.forEach((c) => c.requests.clear()),
  } as never);
  registry.registerMetric({
    name: 'http_request_duration_seconds', help: 'Time from request to the end of the reply, by route pattern', type: 'histogram',
    aggregator: 'sum',
    get: async () => ({
      name: 'http_request_duration_seconds', help: 'Time from request to the end of the reply, by route pattern', type: 'histogram', aggregator: 'sum',
      values: counts.flatMap((c) => histogramValues(c)),
    }),
    reset: () => counts.forEach((c) => { c.buckets.fill(0); c.sum = 0; c.count = 0; }),
  } as never);
  // the lane's hits and misses: a per-route counter each, read at scrape time
  const laneCounter = (name: string, help: string, field: 'lane' | 'laneMisses'): void => registry.registerMetric({
    name, help, type: 'counter', aggregator: 'sum',
    get: async () => ({
      name, help, type: 'counter', aggregator: 'sum',
      values: counts.filter((c) => c[field] > 0).map((c): MetricValue => ({ value: c[field], labels: { route: c.route } })),
    }),
    reset: () => counts.forEach((c) => { c[field] = 0; }),
  } as never);
  laneCounter('http_express_lane_requests_total', "Requests answered by a route's express lane (also in http_requests_total)", 'lane');
  laneCounter('http_express_lane_misses_total', "Requests a route's express lane passed to the generic path (the lane's misses)", 'laneMisses');
  const storeErrors = new Counter({
    name: 'store_errors_total',
    help: 'Requests that failed because the store was unavailable',
    registers: [registry],
  });
  const settleTimeouts = new Counter({
    name: 'effects_settle_timeouts_total',
    help: 'Requests that stopped waiting for the effects of their commit to be handled after the timeout (2 s); 0 in normal operation',
    registers: [registry],
  });
  const feedsOpen = new Gauge({ name: 'event_streams_open', help: 'Live event streams (SSE and WebSocket) open now', registers: [registry] });
  const feedsEnded = new Counter({
    name: 'event_streams_ended_total', help: 'Live event streams ended, by reason: client (left), server (ended it), slow (dropped: did not read)',
    labelNames: ['reason'], registers: [registry],
  });
  const actionStatuses = new Counter({
    name: 'actions_status_changes_total', help: 'Actions that entered a status, by the status (committed changes)',
    labelNames: ['status'], registers: [registry],
  });
  const updatesFinished = new Counter({ name: 'updates_finished_total', help: 'Actions that ended finished (a successful update)', registers: [registry] });
  const updatesFailed = new Counter({ name: 'updates_failed_total', help: 'Actions that ended in error (a failed update)', registers: [registry] });
  const feedback = new Counter({
    name: 'ddi_feedback_total', help: 'DDI feedback taken from devices, by kind (deployment, cancel) and execution value',
    labelNames: ['kind', 'execution'], registers: [registry],
  });
  const routes = new Map<string, RouteMetrics>();

  function forRoute(route: string): RouteMetrics {
    const existing = routes.get(route);
    if (existing !== undefined) return existing;
    const buckets = new Array<number>(BUCKETS.length + 1).fill(0);
    const c: RouteCounts = { route, requests: new Map(), buckets, sum: 0, count: 0, lane: 0, laneMisses: 0 };
    counts.push(c);
    const made: RouteMetrics = {
      observe(methodIndex, status, seconds) {
        const key = status * 16 + methodIndex;
        c.requests.set(key, (c.requests.get(key) ?? 0) + 1);
        let i = 0;
        while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
        c.buckets[i]!++;
        c.sum += seconds;
        c.count++;
      },
      lane() {
        c.lane++;
      },
      laneMiss() {
        c.laneMisses++;
      },
    };
    routes.set(route, made);
    return made;
  }

  return {
    registry,
    forRoute,
    storeError: () => storeErrors.inc(),
    settleTimedOut: () => settleTimeouts.inc(),
    feedOpened: () => feedsOpen.inc(),
    feedEnded: (why) => {
      feedsOpen.dec();
      feedsEnded.inc({ reason: why });
    },
    actionStatus: (status) => {
      actionStatuses.inc({ status });
      if (status === 'finished') updatesFinished.inc();
      else if (status === 'error') updatesFailed.inc();
    },
    ddiFeedback: (kind, execution) => feedback.inc({ kind, execution }),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

function histogramValues(c: RouteCounts): MetricValue[] {
  const out: MetricValue[] = [];
  let cumulative = 0;
  BUCKETS.forEach((le, i) => {
    cumulative += c.buckets[i]!;
    out.push({ metricName: 'http_request_duration_seconds_bucket', labels: { le, route: c.route }, value: cumulative });
  });
  out.push({ metricName: 'http_request_duration_seconds_bucket', labels: { le: '+Inf', route: c.route }, value: c.count });
  out.push({ metricName: 'http_request_duration_seconds_sum', labels: { route: c.route }, value: c.sum });
  out.push({ metricName: 'http_request_duration_seconds_count', labels: { route: c.route }, value: c.count });
  return out;
}

/** For modules that want their own gauges and counters on the same registry. */
export type { Counter };
