import { describe, expect, it } from 'vitest';
import { afterAttempt, backoffMs, webhookBody, webhookUrlProblem, type WebhookDeliveryRecord } from '../../../src/domain/webhook.js';

const BACKOFF = { initialMs: 1_000, factor: 2, maxMs: 5_000 };
const pending: WebhookDeliveryRecord = {
  id: 1, webhook: 2, eventId: '10-0:0', type: 'target', body: '{}', status: 'pending', attempts: 0, nextAt: 0, createdAt: 0,
  lastStatus: null, lastError: null,
};

describe('webhook rules', () => {
  it('waits initial x factor^(n-1) after the n-th failure, at most max', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(BACKOFF, n))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
  });

  it('removes a delivered event, schedules the next attempt, and leaves a dead letter after the last', () => {
    const s = { attempts: 2, backoff: BACKOFF };
    expect(afterAttempt(pending, { ok: true, status: 204 }, s, 100)).toBeNull();
    const once = afterAttempt(pending, { ok: false, status: 500, error: 'HTTP 500' }, s, 100);
    expect(once).toMatchObject({ status: 'pending', attempts: 1, nextAt: 1_100, lastStatus: 500, lastError: 'HTTP 500' });
    expect(afterAttempt(once!, { ok: false, status: null, error: 'refused' }, s, 200)).toMatchObject({
      status: 'dead', attempts: 2, nextAt: 200, lastStatus: null, lastError: 'refused',
    });
  });

  it('accepts http and https URLs only', () => {
    expect(webhookUrlProblem('https://example.com/hook')).toBeUndefined();
    expect(webhookUrlProblem('http://10.0.0.1:8080/x?y=1')).toBeUndefined();
    for (const bad of ['ftp://example.com', 'javascript:alert(1)', 'example.com/hook', '', 'http://']) expect(webhookUrlProblem(bad), bad).toBeDefined();
  });

  it('puts the event fields under data, beside id, type, tenant and occurredAt', () => {
    expect(JSON.parse(webhookBody('T', '5-1:2', 5, { type: 'rollout', rolloutId: 3, status: 'running' }))).toEqual({
      id: '5-1:2', type: 'rollout', tenant: 'T', occurredAt: 5, data: { rolloutId: 3, status: 'running' },
    });
  });
});
