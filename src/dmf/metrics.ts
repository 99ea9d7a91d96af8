import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventTopic } from './protocol.js';

/** The connector's counters on the server's /metrics. */
export interface DmfMetrics {
  received(outcome: 'handled' | 'rejected' | 'requeued'): void;
  published(outcome: 'confirmed' | 'dropped' | 'failed', count: number): void;
  connected(up: boolean): void;
  /** One message taken from the receiver queue (in) or confirmed by the broker (out), by its topic, else its type. */
  message(direction: 'in' | 'out', headers: { readonly type?: string | undefined; readonly topic?: string | undefined }): void;
}

const TOPICS: Record<EventTopic, true> = {
  UPDATE_ACTION_STATUS: true, DOWNLOAD_AND_INSTALL: true, CANCEL_DOWNLOAD: true, UPDATE_ATTRIBUTES: true, UPDATE_AUTO_CONFIRM: true,
  DOWNLOAD: true, REQUEST_ATTRIBUTES_UPDATE: true, MULTI_ACTION: true, BATCH_DOWNLOAD: true, BATCH_DOWNLOAD_AND_INSTALL: true,
  CONFIRM: true,
};
const TYPES = new Set(['THING_CREATED', 'THING_REMOVED', 'THING_DELETED', 'PING', 'PING_RESPONSE', 'EVENT']);

/** The `kind` label: a known topic or type, else `other` (the headers are the sender's: the label set stays bounded). */
function kindOf(headers: { readonly type?: string | undefined; readonly topic?: string | undefined }): string {
  if (headers.topic !== undefined && Object.hasOwn(TOPICS, headers.topic)) return headers.topic;
  return headers.type !== undefined && TYPES.has(headers.type) ? headers.type : 'other';
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
  const messages = new Counter({
    name: 'dmf_messages_total', help: 'DMF messages in (taken from the receiver queue) and out (confirmed by the broker), by topic or type',
    labelNames: ['direction', 'kind'], registers: [registry],
  });
  const up = new Gauge({ name: 'dmf_connected', help: '1 while the DMF connector is connected to the broker', registers: [registry] });
  return {
    received: (outcome) => received.inc({ outcome }),
    published: (outcome, count) => void (count > 0 && published.inc({ outcome }, count)),
    connected: (on) => up.set(on ? 1 : 0),
    message: (direction, headers) => messages.inc({ direction, kind: kindOf(headers) }),
  };
}
