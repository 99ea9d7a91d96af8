/**
 * The webhooks config.yaml declares per tenant (`tenants[].webhooks`): created when the server
 * starts, or brought back to what config.yaml says (url, secret, kinds, enabled), matched by name.
 * Several instances starting at once agree through the unique name (a lost race reads the winner's).
 */
import { created, touched } from '../domain/audit.js';
import { WEBHOOK, type WebhookKind, type WebhookRecord } from '../domain/webhook.js';
import type { Store, Tenant } from '../store/port.js';
import { retryCommit } from '../store/retry.js';

export interface ConfiguredWebhook {
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly kinds: readonly WebhookKind[];
  readonly enabled: boolean;
}

/** Who config.yaml's webhooks are created and changed by (audit fields). */
const BY = 'config.yaml';

export async function applyConfiguredWebhooks(
  store: Store, tenant: Tenant, hooks: readonly ConfiguredWebhook[], now: number,
): Promise<void> {
  for (const hook of hooks) {
    const result = await retryCommit(store, tenant, async () => {
      const id = await store.lookup(tenant, WEBHOOK, 'name', hook.name.toLowerCase());
      const current = id === undefined ? undefined : await store.get<WebhookRecord>(tenant, WEBHOOK, id);
      if (current === undefined) {
        const since = (await store.readJournal(tenant, undefined, 1)).last;
        const newId = await store.nextIds(tenant, WEBHOOK);
        const value: WebhookRecord = { id: newId, ...hook, kinds: [...hook.kinds], since, ...created(BY, now) };
        return { commit: { writes: [{ kind: WEBHOOK, id: newId, expect: 0, after: value }] }, result: () => undefined };
      }
      const w = current.value;
      if (w.url === hook.url && w.secret === hook.secret && w.enabled === hook.enabled && w.kinds.join() === hook.kinds.join()) {
        return { done: undefined };
      }
      const since = !w.enabled && hook.enabled ? (await store.readJournal(tenant, undefined, 1)).last : w.since;
      const value = touched({ ...w, url: hook.url, secret: hook.secret, kinds: [...hook.kinds], enabled: hook.enabled, since }, BY, now);
      const write = { kind: WEBHOOK, id: w.id, expect: current.version, before: w, after: value };
      return { commit: { writes: [write] }, result: () => undefined };
    });
    // unique-conflict: another instance created it between our lookup and commit; it holds what config.yaml says
    if (!result.ok && result.reason !== 'unique-conflict') throw new Error(`config.yaml: webhook ${hook.name} of tenant ${tenant}: ${result.reason}`);
  }
}
