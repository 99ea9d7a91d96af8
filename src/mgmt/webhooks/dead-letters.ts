/**
 * A webhook's dead letters: the events whose every attempt failed, at
 * `/rest/v1/webhooks/{id}/deadletters` (paged, FIQL like any list), each one readable, deliverable
 * again (its attempts start afresh) or deletable.
 */
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { WEBHOOK, WEBHOOK_DELIVERY, WEBHOOK_KINDS, type WebhookDeliveryRecord } from '../../domain/webhook.js';
import type { Request, Route } from '../../http/types.js';
import { defineFields, num, oneOf, text, timestamp } from '../../query/index.js';
import type { Store, Stored, Tenant, Write } from '../../store/port.js';
import { linksSchema, pageSchema } from '../../apidoc/shapes.js';
import type { Access } from '../kit/access.js';
import type { KitDeps } from '../kit/deps.js';
import { link, pageOf } from '../kit/hal.js';
import { listPage } from '../kit/list.js';
import { callerOf, pathId } from '../kit/request.js';
import { commitOrThrow, loadOr404 } from '../kit/store.js';

const ENTITY = 'WebhookDeadLetter';
/** Records per delete commit when a webhook goes. */
const BATCH = 500;

const deadLetterResponse = z.looseObject({
  id: z.number().int(),
  eventId: z.string().describe('X-Peregrine-Delivery: the journal entry id and the index of the event in it'),
  type: z.enum(WEBHOOK_KINDS),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable().describe('HTTP status of the last attempt; null when none came'),
  lastError: z.string().nullable(),
  createdAt: z.number().int(),
  failedAt: z.number().int(),
  payload: z.looseObject({}).describe('The body that was sent'),
  _links: linksSchema,
});

const fields = defineFields<WebhookDeliveryRecord, typeof WEBHOOK_DELIVERY>({
  resource: 'deadletter',
  id: (d) => d.id,
  fields: {
    id: num((d) => d.id),
    eventid: text((d) => d.eventId),
    type: oneOf(WEBHOOK_KINDS, (d) => d.type),
    attempts: num((d) => d.attempts),
    createdat: timestamp((d) => d.createdAt),
    failedat: timestamp((d) => d.nextAt),
  },
});

function deadLetterJson(req: Request, d: WebhookDeliveryRecord): object {
  const self = `/rest/v1/webhooks/${d.webhook}/deadletters/${d.id}`;
  return {
    id: d.id, eventId: d.eventId, type: d.type, attempts: d.attempts, lastStatus: d.lastStatus, lastError: d.lastError,
    createdAt: d.createdAt, failedAt: d.nextAt, payload: JSON.parse(d.body) as unknown,
    _links: { self: link(req, self), redeliver: link(req, `${self}/redeliver`) },
  };
}

/** Removes a webhook and every delivery of it (pending ones and dead letters), in batches. */
export async function removeWebhook(store: Store, tenant: Tenant, webhookId: number): Promise<void> {
  // the webhook first: deliveries left behind by a crash are orphans the delivery loop removes
  await commitOrThrow(store, tenant, `Webhook ${webhookId}`, async () => {
    const w = await loadOr404(store, tenant, WEBHOOK, webhookId);
    return { commit: { writes: [{ kind: WEBHOOK, id: w.id, expect: w.version, before: w.value, after: null }] }, result: () => undefined };
  });
  for (;;) {
    const page = await store.members(tenant, WEBHOOK_DELIVERY, 'webhook', String(webhookId), { offset: 0, limit: BATCH });
    if (page.ids.length === 0) return;
    const found = (await store.getMany<WebhookDeliveryRecord>(tenant, WEBHOOK_DELIVERY, page.ids)).filter((d) => d !== undefined);
    const writes: Write[] = found.map((d) => ({ kind: WEBHOOK_DELIVERY, id: d.id, expect: d.version, before: d.value, after: null }));
    // a delivery sent meanwhile changed its version: the next round reads it again
    if (writes.length > 0) await store.commit(tenant, { writes });
    if (page.total <= BATCH && writes.length === page.ids.length) return;
  }
}

export function deadLetterRoutes(deps: KitDeps, access: Access): Route[] {
  const base = '/rest/v1/webhooks/:webhookId/deadletters';
  /** The path's webhook; 404 when it is not this tenant's. */
  const webhookOf = (req: Request) => loadOr404(deps.store, callerOf(req).tenant, WEBHOOK, pathId(req, 'webhookId', 'Webhook'));
  /** The webhook (404 when it is not this tenant's) and one of its dead letters. */
  const deadLetterOf = async (req: Request): Promise<Stored<WebhookDeliveryRecord>> => {
    const { tenant } = callerOf(req);
    const webhook = (await webhookOf(req)).id;
    const id = pathId(req, 'deadLetterId', ENTITY);
    const d = await deps.store.get<WebhookDeliveryRecord>(tenant, WEBHOOK_DELIVERY, id);
    if (d === undefined || d.value.webhook !== webhook || d.value.status !== 'dead') throw notFound(ENTITY, id);
    return d;
  };
  /** Changes one dead letter with compare-and-set; 404 when it went meanwhile. */
  const change = (req: Request, next: (d: WebhookDeliveryRecord) => WebhookDeliveryRecord | null) =>
    commitOrThrow(deps.store, callerOf(req).tenant, ENTITY, async () => {
      const d = await deadLetterOf(req);
      const write: Write = { kind: WEBHOOK_DELIVERY, id: d.id, expect: d.version, before: d.value, after: next(d.value) };
      return { commit: { writes: [write] }, result: () => undefined };
    });
  return [
    {
      method: 'GET', path: base, auth: deps.mgmtAuth(access.read),
      doc: { list: true, summary: "A webhook's dead letters: events whose every attempt failed", response: pageSchema(deadLetterResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const webhook = await webhookOf(req);
        const page = await listPage<WebhookDeliveryRecord, WebhookDeliveryRecord>(deps, tenant, req, {
          kind: WEBHOOK_DELIVERY, fields, within: { index: 'dead', key: String(webhook.id) },
        });
        return { status: 200, json: pageOf(page.content.map((d) => deadLetterJson(req, d)), page.total) };
      },
    },
    {
      method: 'GET', path: `${base}/:deadLetterId`, auth: deps.mgmtAuth(access.read), doc: { response: deadLetterResponse },
      handler: async (req) => ({ status: 200, json: deadLetterJson(req, (await deadLetterOf(req)).value) }),
    },
    {
      method: 'POST', path: `${base}/:deadLetterId/redeliver`, auth: deps.mgmtAuth(access.update),
      doc: { summary: 'Delivers a dead letter again (attempts start afresh)', response: { status: 204 } },
      handler: async (req) => {
        await change(req, (d) => ({ ...d, status: 'pending', attempts: 0, nextAt: deps.now() }));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${base}/:deadLetterId`, auth: deps.mgmtAuth(access.delete), doc: { response: { status: 204 } },
      handler: async (req) => {
        await change(req, () => null);
        return { status: 204 };
      },
    },
  ];
}
