/**
 * Webhooks survive restarts and share the work between instances (issue 25), on Redis and a Redis
 * Cluster (the memory store dies with its process): events committed while no instance delivered,
 * and deliveries still being retried when their instance stopped, reach the receiver through the
 * next instance; two instances at once deliver each event once (the lease).
 */
import { describe, expect, it } from 'vitest';
import { createTargets, startRolloutApp, uid, type RolloutApp } from '../rollouts/fixture.js';
import { FAST, SECRET, createWebhook, expectSigned, startReceiver } from './receiver.js';

/** A server that never runs a delivery pass (its first would come in an hour). */
const IDLE = { ...FAST, intervalMs: 3_600_000 };

describe.each(['redis', 'cluster'] as const)('webhooks across restarts on %s', (kind) => {
  const start = (config: Readonly<Record<string, unknown>>, tenant?: string): Promise<RolloutApp> =>
    startRolloutApp(kind, { webhookSettings: config, ...(tenant === undefined ? {} : { sameAs: { tenant } }) });

  it('delivers the events committed while no instance was delivering, after a restart', async () => {
    const receiver = await startReceiver();
    const first = await start(IDLE);
    await createWebhook(first, { url: receiver.url, kinds: ['target'] });
    const made = await createTargets(first, uid('offline'), 3);
    await first.server.close();
    expect(receiver.received).toHaveLength(0);

    await start(FAST, first.tenant);
    for (const c of made) expectSigned(await receiver.next((r) => r.body?.data.controllerId === c, `the event of ${c}`), SECRET);
  });

  it('goes on retrying, after a restart, what the stopped instance was retrying', async () => {
    const receiver = await startReceiver();
    receiver.answer(503);
    const first = await start({ ...FAST, attempts: 50 });
    await createWebhook(first, { url: receiver.url, kinds: ['target'] });
    const [target] = await createTargets(first, uid('retried'), 1);
    const failed = await receiver.next((r) => r.body?.data.controllerId === target, 'a failed attempt');
    await first.server.close();

    receiver.answer(200);
    await start(FAST, first.tenant);
    const ok = await receiver.next((r) => r.status === 200 && r.body?.id === failed.body.id, 'the event through the next instance');
    expect(ok.raw).toBe(failed.raw);
  });

  it('delivers each event once with two instances running', async () => {
    const receiver = await startReceiver();
    const settings = { ...FAST, leaseMs: 10_000 };
    const one = await start(settings);
    await start(settings, one.tenant);
    await createWebhook(one, { url: receiver.url, kinds: ['target'] });
    const made = await createTargets(one, uid('pair'), 5);
    for (const c of made) await receiver.next((r) => r.body?.data.controllerId === c, `the event of ${c}`);
    const ids = receiver.received.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
