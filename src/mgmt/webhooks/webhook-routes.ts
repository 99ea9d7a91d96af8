/**
 * `/rest/v1/webhooks`: a tenant's webhooks (issue 25), declared with the kit, and their dead letters.
 * hawkBit has no webhooks; they are part of the tenant's configuration there would be, so reading them
 * needs READ_TENANT_CONFIGURATION (or TENANT_CONFIGURATION) and changing them TENANT_CONFIGURATION, as
 * for `/rest/v1/system/configs`. The secret is write-only: no reply carries it.
 */
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import { WEBHOOK, WEBHOOK_KINDS, webhookUrlProblem, type WebhookRecord } from '../../domain/webhook.js';
import type { Request, Route } from '../../http/types.js';
import type { Store, Tenant } from '../../store/port.js';
import { bool as boolField, defineFields, num, text, timestamp } from '../../query/index.js';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';
import { CONFIG, type Access } from '../kit/access.js';
import { LIMITS, bool, str } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link } from '../kit/hal.js';
import { jsonOf, namedRoutes } from '../kit/named.js';
import { deadLetterRoutes, removeWebhook } from './dead-letters.js';

export const WEBHOOKS = '/rest/v1/webhooks';

const ACCESS: Access = { read: CONFIG.read, create: CONFIG.write, update: CONFIG.write, delete: CONFIG.write };

const url = str(z.string().superRefine((raw, ctx) => {
  const problem = webhookUrlProblem(raw);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}));
const secret = str(z.string().min(16).max(256));
const kinds = z.array(z.enum(WEBHOOK_KINDS)).min(1);
const webhookName = str(z.string().trim().min(1).max(LIMITS.name));

const createBody = z.object({
  name: webhookName,
  url,
  secret: secret.describe('The HMAC-SHA256 key of X-Peregrine-Signature (16-256 characters); never returned'),
  kinds: kinds.nullish().describe(`Event kinds to send, any of ${WEBHOOK_KINDS.join(', ')}; default all`),
  enabled: bool().nullish(),
});
const updateBody = z.object({
  name: webhookName.nullish(), url: url.nullish(), secret: secret.nullish(), kinds: kinds.nullish(), enabled: bool().nullish(),
});

const webhookResponse = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  url: z.string(),
  kinds: z.array(z.enum(WEBHOOK_KINDS)),
  enabled: z.boolean(),
  ...auditShape,
  _links: linksSchema,
});

const fields = defineFields<WebhookRecord, typeof WEBHOOK>({
  resource: 'webhook',
  id: (w) => w.id,
  fields: {
    id: num((w) => w.id),
    name: text((w) => w.name, { index: { name: 'name', unique: true } }),
    url: text((w) => w.url),
    enabled: boolField((w) => w.enabled),
    createdat: timestamp((w) => w.createdAt),
    lastmodifiedat: timestamp((w) => w.lastModifiedAt),
  },
});

function webhookJson(req: Request, w: WebhookRecord): object {
  const self = `${WEBHOOKS}/${w.id}`;
  return {
    id: w.id, name: w.name, url: w.url, kinds: w.kinds, enabled: w.enabled, ...auditJson(w),
    _links: { self: link(req, self), deadletters: link(req, `${self}/deadletters`) },
  };
}

/** Where the tenant's journal stands: a webhook created (or enabled) now gets the events after it. */
async function journalPosition(store: Pick<Store, 'readJournal'>, tenant: Tenant): Promise<string> {
  return (await store.readJournal(tenant, undefined, 1)).last;
}

export interface WebhookDeps extends KitDeps {
  readonly quotas: Pick<Quotas, 'maxWebhooksPerTenant'>;
}

export function webhookRoutes(deps: WebhookDeps): Route[] {
  return [
    ...namedRoutes(deps, {
      kind: WEBHOOK,
      path: WEBHOOKS,
      idParam: 'webhookId',
      access: ACCESS,
      render: jsonOf(webhookJson),
      schema: webhookResponse,
      list: { fields },
      create: {
        item: createBody,
        single: true,
        build: async (ctx, items) => {
          const max = deps.quotas.maxWebhooksPerTenant;
          if ((await deps.store.count(ctx.tenant, WEBHOOK)) + items.length > max) {
            throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: a tenant may have at most ${max} webhooks (quotas.maxWebhooksPerTenant)`);
          }
          const since = await journalPosition(deps.store, ctx.tenant);
          return items.map((item) => (id, audit) => ({
            id, name: item.name, url: item.url, secret: item.secret, kinds: item.kinds ?? [...WEBHOOK_KINDS], enabled: item.enabled ?? true,
            since, ...audit,
          }));
        },
      },
      update: {
        body: updateBody,
        apply: async (ctx, w, body) => ({
          ...w,
          name: body.name ?? w.name, url: body.url ?? w.url, secret: body.secret ?? w.secret,
          kinds: body.kinds ?? w.kinds, enabled: body.enabled ?? w.enabled,
          // enabled again: the events after now, none of those while it was off
          since: !w.enabled && body.enabled === true ? await journalPosition(deps.store, ctx.tenant) : w.since,
        }),
      },
      // its deliveries go with it: pending ones and dead letters
      remove: (ctx, w) => removeWebhook(deps.store, ctx.tenant, w.id),
    }),
    ...deadLetterRoutes(deps, ACCESS),
  ];
}
