/**
 * Webhooks (issue 25): the routes of `/rest/v1/webhooks` and the delivery loop. Every tenant's loop
 * runs under the store lease `scheduler:webhooks:<tenant>`, so with several instances (or worker
 * threads) one delivers at a time and another takes over when it dies. Each pass turns new journal
 * entries into deliveries (fan-out.ts), then sends those that are due (deliver.ts).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Tenants } from '../tenancy/registry.js';
import { Counter } from 'prom-client';
import { JOURNAL_KINDS } from '../actors/journal.js';
import type { AppModule, ModuleContext } from '../module.js';
import { canonicalTenant } from '../domain/ids.js';
import { WEBHOOK, WEBHOOK_KINDS } from '../domain/webhook.js';
import { webhookRoutes, type WebhookDeps } from '../mgmt/webhooks/webhook-routes.js';
import { TaskRunner, type Task } from '../scheduler/runner.js';
import type { Tenant } from '../store/port.js';
import { holdsNone } from '../store/reads.js';
import { applyConfiguredWebhooks } from './config-webhooks.js';
import { deliverDue } from './deliver.js';
import { fanOut } from './fan-out.js';
import { post } from './send.js';

// the journal's kinds and the webhooks' are one list, written twice only because domain/ imports nothing from actors/
if (JOURNAL_KINDS.join() !== WEBHOOK_KINDS.join()) throw new Error('webhook kinds differ from the journal kinds');

export interface WebhooksDeps extends WebhookDeps {
  readonly ctx: Pick<ModuleContext, 'config' | 'metrics'> & { readonly logger: Pick<Logger, 'info' | 'warn' | 'error'> };
  readonly tenants: Pick<Tenants, 'list'>;
}

/** Fan-out rounds per pass: each reads up to 100 journal entries. */
const ROUNDS = 20;

export function webhooksModule(deps: WebhooksDeps): AppModule {
  const settings = deps.ctx.config.webhooks;
  const log = deps.ctx.logger;
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const attempts = new Counter({
    name: 'webhook_attempts_total', help: 'Webhook POSTs by outcome: delivered (2xx), failed (tried again later), dead (the last attempt failed)',
    labelNames: ['outcome'], registers: [deps.ctx.metrics.registry],
  });
  const runner = new TaskRunner({ store: deps.store, tenants: deps.tenants, owner, log });

  const pass = async (tenant: Tenant, keep: () => Promise<void>): Promise<number> => {
    for (let round = 0; round < ROUNDS; round++) {
      const step = await fanOut(deps.store, tenant, deps.now());
      if (step.gap) log.warn({ tenant }, 'webhooks: the journal dropped entries before they were read; their events are not delivered');
      if (!step.more) break;
      await keep();
    }
    const counted = (outcome: string): void => attempts.inc({ outcome });
    const sent = await deliverDue({ store: deps.store, settings, post, now: () => deps.now(), counted }, tenant);
    if (sent.dead > 0) log.warn({ tenant, dead: sent.dead }, 'webhooks: deliveries failed their last attempt; see the dead letters of the webhook');
    return sent.delivered;
  };
  const task: Task = {
    name: 'webhooks', intervalMs: settings.intervalMs, leased: true, leaseMs: settings.leaseMs, run: (t, _now, keep) => pass(t, keep),
    // no webhook, no delivery (a webhook's deletion takes its deliveries with it): a cached read, no lease
    idle: (t) => holdsNone(deps.store.cached, t, WEBHOOK),
  };

  return {
    name: 'webhooks',
    routes: webhookRoutes(deps),
    // leases keep it correct on any number of loops; one contender per process is enough
    primaryOnly: true,
    async start() {
      for (const t of deps.ctx.config.tenants) {
        if (t.webhooks.length > 0) await applyConfiguredWebhooks(deps.store, canonicalTenant(t.name), t.webhooks, deps.now());
      }
      runner.start([task]);
    },
    async stop() {
      await runner.stop([task]);
    },
  };
}
