/**
 * One attempt of one delivery: a POST of the body with the signature headers, over undici with a
 * timeout. Redirects are not followed (a receiver answers 2xx itself); the answer's body is read and
 * dropped so the connection is reused.
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { AttemptOutcome } from '../domain/webhook.js';

export interface Attempt {
  readonly url: string;
  readonly secret: string;
  readonly eventId: string;
  readonly type: string;
  readonly body: string;
}

/** `sha256=<hex HMAC-SHA256 of the raw body with the secret>`, as GitHub signs its webhooks. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export async function post(a: Attempt, timeoutMs: number): Promise<AttemptOutcome> {
  try {
    const res = await request(a.url, {
      method: 'POST',
      body: a.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'peregrine-webhooks',
        'x-peregrine-event': a.type,
        'x-peregrine-delivery': a.eventId,
        'x-peregrine-signature': signature(a.secret, a.body),
      },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump();
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode };
    return { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}` };
  } catch (err) {
    return { ok: false, status: null, error: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 500) : 'failed' };
  }
}
