/**
 * Webhooks (issue 25): a tenant's URLs that get the journal's rollout, group, action and target events
 * as signed POSTs. The records and the pure rules (which webhook gets which event, the body, the
 * backoff); the delivery loop that reads the journal and sends lives in src/webhooks.
 */
import type { Audit } from './audit.js';
import type { KindSchema } from './record-schema.js';

export const WEBHOOK = 'webhook';
/** One event on its way to one webhook: pending until delivered (then removed), dead after the last attempt. */
export const WEBHOOK_DELIVERY = 'webhookdelivery';
/** The tenant's position in its journal up to which events were turned into deliveries (one record, id 1). */
export const WEBHOOK_CURSOR = 'webhookcursor';
export const CURSOR_ID = 1;

/** The journal's event kinds (src/actors/journal.ts JOURNAL_KINDS; src/webhooks checks that they agree). */
export const WEBHOOK_KINDS = ['rollout', 'group', 'action', 'target'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

export interface WebhookRecord extends Audit {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  /** The HMAC-SHA256 key of the signature header; write-only over the API. */
  readonly secret: string;
  /** The event kinds it gets. */
  readonly kinds: readonly WebhookKind[];
  readonly enabled: boolean;
  /** The journal's position when it was created: it gets the events after it. */
  readonly since: string;
}

export interface WebhookDeliveryRecord {
  readonly id: number;
  readonly webhook: number;
  /** `<journal entry id>:<index of the event in the entry>`: the same on every attempt, for receivers to dedupe. */
  readonly eventId: string;
  readonly type: WebhookKind;
  /** The JSON body, exactly as signed and sent on every attempt. */
  readonly body: string;
  readonly status: 'pending' | 'dead';
  /** Attempts made so far. */
  readonly attempts: number;
  /** When the next attempt is due (ms); for a dead letter, when it died. */
  readonly nextAt: number;
  readonly createdAt: number;
  /** The HTTP status of the last attempt, null when none came (refused, timed out). */
  readonly lastStatus: number | null;
  readonly lastError: string | null;
}

export interface WebhookCursorRecord {
  readonly id: number;
  /** Journal entries up to this id were turned into deliveries. */
  readonly after: string;
}

export const webhookSchema: KindSchema<WebhookRecord, { unique: 'name'; multi: never }> = {
  indexes: (w) => ({ unique: [['name', w.name.toLowerCase()]] }),
};

export const webhookDeliverySchema: KindSchema<WebhookDeliveryRecord, { unique: never; multi: 'webhook' | 'due' | 'dead' }> = {
  indexes: (d) => ({
    multi: [
      ['webhook', String(d.webhook)],
      // pending ones by due time (the delivery loop's range read), dead letters per webhook in id order
      d.status === 'pending' ? ['due', 'pending', d.nextAt] : ['dead', String(d.webhook)],
    ],
  }),
};

export const webhookCursorSchema: KindSchema<WebhookCursorRecord, { unique: never; multi: never }> = { indexes: () => ({}) };

/** Retries of a delivery (config.yaml `webhooks`). */
export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
}

/** The wait after the `attempts`-th failed attempt: initial, x factor each time, at most max. */
export function backoffMs(b: Backoff, attempts: number): number {
  return Math.min(b.maxMs, Math.round(b.initialMs * b.factor ** Math.max(0, attempts - 1)));
}

/** How one attempt went: a 2xx, or the status (null: no answer) and why not. */
export type AttemptOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status: number | null; readonly error: string };

/** The delivery after an attempt: gone (null) when delivered, else the next attempt scheduled, or a dead letter. */
export function afterAttempt(
  d: WebhookDeliveryRecord, outcome: AttemptOutcome, s: { readonly attempts: number; readonly backoff: Backoff }, now: number,
): WebhookDeliveryRecord | null {
  if (outcome.ok) return null;
  const attempts = d.attempts + 1;
  const failed = { ...d, attempts, lastStatus: outcome.status, lastError: outcome.error };
  return attempts >= s.attempts ? { ...failed, status: 'dead', nextAt: now } : { ...failed, nextAt: now + backoffMs(s.backoff, attempts) };
}

/** One journal event as a webhook body: `{id, type, tenant, occurredAt, data}`. */
export function webhookBody(
  tenant: string, eventId: string, occurredAt: number, event: { readonly type: string; readonly [field: string]: unknown },
): string {
  const { type, ...data } = event;
  return JSON.stringify({ id: eventId, type, tenant, occurredAt, data });
}

/** Whether a webhook gets events of this kind (journal entries after its `since` only: the caller compares ids). */
export function wants(w: WebhookRecord, kind: string): boolean {
  return w.enabled && (w.kinds as readonly string[]).includes(kind);
}

/** Longest webhook URL accepted. */
export const WEBHOOK_URL_MAX = 2048;

/** Why a text is not a webhook URL (an absolute http:// or https:// URL with a host), or undefined when it is one. */
export function webhookUrlProblem(raw: string): string | undefined {
  if (raw.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be an http:// or https:// URL, got ${JSON.stringify(raw.slice(0, 80))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http:// or https:// URL, got the scheme ${JSON.stringify(url.protocol)}`;
  if (url.hostname === '') return 'must name a host';
  return undefined;
}
