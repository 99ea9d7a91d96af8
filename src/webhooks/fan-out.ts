/**
 * Turns the tenant's journal (src/actors/journal.ts: what every commit changed, written in the same
 * atomic commit) into deliveries: one record per event and webhook that wants it, committed together
 * with the tenant's cursor. The journal is durable and the cursor moves only with the deliveries it
 * made, so a crash anywhere loses no event and makes none twice; the delivery records then carry the
 * retries (deliver.ts).
 */
import {
  CURSOR_ID, WEBHOOK, WEBHOOK_CURSOR, WEBHOOK_DELIVERY, webhookBody, wants,
  type WebhookCursorRecord, type WebhookDeliveryRecord, type WebhookRecord,
} from '../domain/webhook.js';
import { compareJournalIds, parseJournalId } from '../store/journal.js';
import type { Store, Tenant, Write } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';

export type FanOutStore = Pick<Store, 'ids' | 'getMany' | 'get' | 'readJournal' | 'nextIds' | 'commit'>;

/** Journal entries per read. */
const ENTRIES = 100;
/** Deliveries per commit (more only when one journal entry alone makes more). */
const DELIVERIES = 500;

export interface FanOut {
  /** Deliveries made. */
  readonly made: number;
  /** More entries are waiting (a full read). */
  readonly more: boolean;
  /** The journal dropped entries the cursor had not reached: their events are lost to webhooks. */
  readonly gap: boolean;
}

const NOTHING: FanOut = { made: 0, more: false, gap: false };

/** One step: the next journal entries after the cursor, as deliveries, committed with the cursor's move. */
export async function fanOut(store: FanOutStore, tenant: Tenant, now: number): Promise<FanOut> {
  const all = await store.ids(tenant, WEBHOOK, SCAN_ALL);
  const hooks = (await loadRecords<WebhookRecord>(store, tenant, WEBHOOK, all.ids)).map((r) => r.value).filter((w) => w.enabled);
  if (hooks.length === 0) return NOTHING;
  const cursor = await store.get<WebhookCursorRecord>(tenant, WEBHOOK_CURSOR, CURSOR_ID);
  // nothing before the oldest webhook's start concerns any of them
  const oldest = hooks.map((w) => w.since).reduce((a, b) => (compareJournalIds(a, b) <= 0 ? a : b));
  const from = cursor === undefined || compareJournalIds(cursor.value.after, oldest) < 0 ? oldest : cursor.value.after;
  const read = await store.readJournal(tenant, from, ENTRIES);
  if (read.entries.length === 0) return { ...NOTHING, gap: read.gap };

  const made: Omit<WebhookDeliveryRecord, 'id'>[] = [];
  let last = from;
  for (const entry of read.entries) {
    if (made.length >= DELIVERIES) break;
    const occurredAt = parseJournalId(entry.id)?.[0] ?? now;
    const takers = hooks.filter((w) => compareJournalIds(entry.id, w.since) > 0);
    entry.events.forEach((event, i) => {
      const eventId = `${entry.id}:${i}`;
      for (const w of takers) {
        if (!wants(w, event.type)) continue;
        made.push({
          webhook: w.id, eventId, type: event.type as WebhookDeliveryRecord['type'], body: webhookBody(tenant, eventId, occurredAt, event),
          status: 'pending', attempts: 0, nextAt: now, createdAt: now, lastStatus: null, lastError: null,
        });
      }
    });
    last = entry.id;
  }
  const first = made.length === 0 ? 0 : await store.nextIds(tenant, WEBHOOK_DELIVERY, made.length);
  const writes: Write[] = [
    { kind: WEBHOOK_CURSOR, id: CURSOR_ID, expect: cursor?.version ?? 0, before: cursor?.value, after: { id: CURSOR_ID, after: last } },
    ...made.map((d, i): Write => ({ kind: WEBHOOK_DELIVERY, id: first + i, expect: 0, after: { id: first + i, ...d } })),
  ];
  // a lost compare-and-set means another instance moved the cursor (it held the lease a moment ago): read again next time
  const result = await store.commit(tenant, { writes });
  if (!result.ok) return { ...NOTHING, gap: read.gap };
  const more = read.entries.length === ENTRIES || last !== (read.entries[read.entries.length - 1]?.id ?? last);
  return { made: made.length, more, gap: read.gap };
}
