import { Counter, Gauge, type Registry } from 'prom-client';

/** The connector's counters on the server's /metrics. */
export interface DmfMetrics {
  received(outcome: 'handled' | 'rejected' | 'requeued'): void;
  published(outcome: 'confirmed' | 'dropped' | 'failed', count: number): void;
  connected(up: boolean): void;
}

export function dmfMetrics(registry: Registry): DmfMetrics {
  const received = new Counter({
    name: 'dmf_messages_received_total', help: 'DMF messages taken from the receiver queue, by outcome (rejected ones are dead-lettered)',
    labelNames: ['outcome'], registers: [registry],
  });
  const published = new Counter({
    name: 'dmf_messages_published_total',
    help: 'DMF messages to devices: confirmed by the broker, dropped (no such exchange), failed (sent again later)',
    labelNames: ['outcome'], registers: [registry],
  });
  const up = new Gauge({ name: 'dmf_connected', help: '1 while the DMF connector is connected to the broker', registers: [registry] });
  return {
    received: (outcome) => received.inc({ outcome }),
    published: (outcome, count) => void (count > 0 && published.inc({ outcome }, count)),
    connected: (on) => up.set(on ? 1 : 0),
  };
}
