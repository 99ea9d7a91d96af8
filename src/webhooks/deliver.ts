/**
 * Sends the deliveries that are due: each webhook's in due order, one at a time (webhooks side by
 * side, at most `concurrency` at once). A 2xx removes the delivery; anything else counts an attempt
 * and sets the next one after the backoff, and the last attempt leaves a dead letter, listed under
 * the webhook. After a failure the webhook's other deliveries wait for the next pass, so a receiver
 * that is down is not hammered. An attempt whose outcome is not recorded (a crash) is made again:
 * at least once, with the same event id.
 */
import {
  afterAttempt, WEBHOOK, WEBHOOK_DELIVERY, type AttemptOutcome, type Backoff, type WebhookDeliveryRecord, type WebhookRecord,
} from '../domain/webhook.js';
import type { Store, Stored, Tenant } from '../store/port.js';
import { loadMap, loadRecords } from '../store/reads.js';
import type { Attempt } from './send.js';

export type DeliverStore = Pick<Store, 'range' | 'getMany' | 'commit'>;

export interface DeliverySettings {
  readonly attempts: number;
  readonly backoff: Backoff;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

export interface DeliverDeps {
  readonly store: DeliverStore;
  readonly settings: DeliverySettings;
  readonly post: (attempt: Attempt, timeoutMs: number) => Promise<AttemptOutcome>;
  readonly now: () => number;
  /** Each attempt's outcome (a metric). */
  readonly counted: (outcome: keyof Delivered) => void;
}

/** Deliveries read per pass. */
const DUE = 200;

export interface Delivered {
  readonly delivered: number;
  readonly failed: number;
  readonly dead: number;
}

export async function deliverDue(deps: DeliverDeps, tenant: Tenant): Promise<Delivered> {
  const { store } = deps;
  const due = await store.range(tenant, WEBHOOK_DELIVERY, 'due', 'pending', 0, deps.now(), { offset: 0, limit: DUE });
  const out = { delivered: 0, failed: 0, dead: 0 };
  if (due.ids.length === 0) return out;
  // oldest first: the index orders equal due times by the id's text, not its number
  const deliveries = (await loadRecords<WebhookDeliveryRecord>(store, tenant, WEBHOOK_DELIVERY, due.ids))
    .sort((a, b) => a.value.nextAt - b.value.nextAt || a.id - b.id);
  const hooks = await loadMap<WebhookRecord>(store, tenant, WEBHOOK, deliveries.map((d) => d.value.webhook));
  const queues = new Map<number, Stored<WebhookDeliveryRecord>[]>();
  for (const d of deliveries) {
    let q = queues.get(d.value.webhook);
    if (q === undefined) queues.set(d.value.webhook, (q = []));
    q.push(d);
  }
  const work = [...queues.entries()];
  const worker = async (): Promise<void> => {
    for (let next = work.shift(); next !== undefined; next = work.shift()) {
      const [webhookId, queue] = next;
      const hook = hooks.get(webhookId);
      for (const d of queue) {
        // the webhook was deleted (its deliveries went with it, but one may have been read just before)
        if (hook === undefined) {
          await store.commit(tenant, { writes: [{ kind: WEBHOOK_DELIVERY, id: d.id, expect: d.version, before: d.value, after: null }] });
          continue;
        }
        const attempt = { url: hook.url, secret: hook.secret, eventId: d.value.eventId, type: d.value.type, body: d.value.body };
        const result = await deps.post(attempt, deps.settings.timeoutMs);
        const after = afterAttempt(d.value, result, deps.settings, deps.now());
        // a lost compare-and-set: the dead letter was deleted or redelivered meanwhile; what it says now stands
        await store.commit(tenant, { writes: [{ kind: WEBHOOK_DELIVERY, id: d.id, expect: d.version, before: d.value, after }] });
        const outcome = result.ok ? 'delivered' : after?.status === 'dead' ? 'dead' : 'failed';
        out[outcome]++;
        deps.counted(outcome);
        if (!result.ok) break;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.settings.concurrency, work.length) }, worker));
  return out;
}
