/**
 * Webhooks (issue 25) end to end over real HTTP, on the memory store, Redis and the Cluster: a rollout run by
 * devices reaches a real receiver as signed POSTs; a receiver that fails gets the event again after
 * the backoff until it accepts it; one that always fails leaves a dead letter, listed, redelivered and
 * deleted over the API; config.yaml's webhooks deliver as the API's do.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY, type WebhookDeliveryRecord } from '../../../src/domain/webhook.js';
import { STORES } from '../../helpers/app.js';
import {
  createSet, createTargets, fleet, groupTargets, runDevice, runningRollout, startRolloutApp, uid, waitFor, waitStatus,
  type Json, type RolloutApp,
} from '../rollouts/fixture.js';
import { FAST, SECRET, WEBHOOKS, createWebhook, expectSigned, startReceiver, type Receiver } from './receiver.js';

/** The webhook's deliveries as stored (pending ones and dead letters). */
async function deliveriesOf(app: RolloutApp, webhook: number): Promise<WebhookDeliveryRecord[]> {
  const tenant = app.tenant.toUpperCase();
  const ids = await app.store.members(tenant, WEBHOOK_DELIVERY, 'webhook', String(webhook), { offset: 0, limit: 100 });
  const found = await app.store.getMany<WebhookDeliveryRecord>(tenant, WEBHOOK_DELIVERY, ids.ids);
  return found.flatMap((d) => (d === undefined ? [] : [d.value]));
}

describe.each(STORES)('webhooks on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  let configured: Receiver;
  beforeAll(async () => {
    configured = await startReceiver('/configured');
    app = await startRolloutApp(kind, {
      webhookSettings: FAST,
      webhooks: [{ name: 'from-config', url: configured.url, secret: 'the-config-secret-1', kinds: ['target'] }],
    });
    ds = (await createSet(app)).id;
  });

  it("posts a rollout's rollout, group and action events, signed, as devices report", async () => {
    const receiver = await startReceiver();
    const hook = await createWebhook(app, { url: receiver.url, kinds: ['rollout', 'group', 'action'] });
    expect(hook).toMatchObject({ url: receiver.url, kinds: ['rollout', 'group', 'action'], enabled: true });
    expect(hook).not.toHaveProperty('secret');
    const prefix = uid('wh');
    await createTargets(app, prefix, 2);
    const rollout = await runningRollout(app, { name: uid('r'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 1 });
    const [group] = (await app.mgmt.get(`/rest/v1/rollouts/${rollout.id}/deploygroups`)).json().content as Json[];
    const actions: number[] = [];
    for (const controllerId of await groupTargets(app, rollout.id, group.id)) actions.push(await runDevice(app, controllerId, 'success'));
    await waitStatus(app, rollout.id, 'finished');

    const finished = await receiver.next((r) => r.body?.type === 'rollout' && r.body.data.status === 'finished', 'the rollout finished');
    expect(finished.body).toMatchObject({ type: 'rollout', tenant: app.tenant.toUpperCase(), data: { rolloutId: rollout.id, name: rollout.name } });
    expect(finished.body.id).toMatch(/^\d+-\d+:\d+$/);
    expect(typeof finished.body.occurredAt).toBe('number');
    for (const id of actions) {
      await receiver.next((r) => r.body?.type === 'action' && r.body.data.actionId === id && r.body.data.status === 'finished', `action ${id} finished`);
    }
    await receiver.next((r) => r.body?.type === 'group' && r.body.data.groupId === group.id && r.body.data.status === 'finished', 'the group finished');
    for (const r of receiver.received) expectSigned(r, SECRET);
    // only the kinds asked for, and each event once while every attempt succeeds
    expect(new Set(receiver.accepted().map((b: Json) => b.type))).toEqual(new Set(['rollout', 'group', 'action']));
    const ids = receiver.accepted().map((b: Json) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('tries again after the backoff until the receiver accepts', async () => {
    const receiver = await startReceiver();
    await createWebhook(app, { url: receiver.url, kinds: ['target'] });
    receiver.failNext(2, 503);
    const [target] = await createTargets(app, uid('retry'), 1);
    const ok = await receiver.next((r) => r.status === 200 && r.body?.data.controllerId === target, 'the accepted attempt');
    const attempts = receiver.received.filter((r) => r.body?.id === ok.body.id);
    expect(attempts.map((r) => r.status)).toEqual([503, 503, 200]);
    for (const r of attempts) {
      expectSigned(r, SECRET);
      expect(r.raw).toBe(ok.raw); // the same event, byte for byte
    }
  });

  it('delivers to a receiver that was down once it is up again', async () => {
    const receiver = await startReceiver();
    const hook = await createWebhook(app, { url: receiver.url, kinds: ['target'] });
    await receiver.stop();
    const [target] = await createTargets(app, uid('down'), 1);
    // the first attempt was refused: the delivery waits for its next attempt (300 ms later)
    const pending = await waitFor(() => deliveriesOf(app, hook.id), (ds) => ds.some((d) => d.attempts >= 1), { what: 'a refused attempt' });
    expect(pending[0]).toMatchObject({ status: 'pending', lastStatus: null });
    expect(pending[0]!.lastError).toMatch(/ECONNREFUSED|refused/i);
    await receiver.start();
    await receiver.next((r) => r.body?.data.controllerId === target, 'the event once the receiver is up');
  });

  it('leaves a dead letter after the last attempt, which can be redelivered or deleted', async () => {
    const receiver = await startReceiver();
    receiver.answer(500);
    const hook = await createWebhook(app, { url: receiver.url, kinds: ['target'] });
    const [one, two] = await createTargets(app, uid('dead'), 2);
    const letters = await waitFor(async () => (await app.mgmt.get(`${WEBHOOKS}/${hook.id}/deadletters`)).json(), (p: Json) => p.total === 2, {
      what: 'two dead letters',
    });
    const byTarget = (c: string): Json => letters.content.find((l: Json) => l.payload.data.controllerId === c);
    const first = byTarget(one!);
    expect(first).toMatchObject({ type: 'target', attempts: 3, lastStatus: 500, lastError: 'HTTP 500', payload: { type: 'target', tenant: app.tenant.toUpperCase() } });
    expect(receiver.received.filter((r) => r.body?.id === first.eventId)).toHaveLength(3);
    expect((await app.mgmt.get(`${WEBHOOKS}/${hook.id}/deadletters/${first.id}`)).json().eventId).toBe(first.eventId);
    const metrics = (await app.anon.get('/metrics')).text;
    expect(metrics).toMatch(/^webhook_attempts_total\{outcome="dead"\} [1-9]/m);
    expect(metrics).toMatch(/^webhook_attempts_total\{outcome="failed"\} [1-9]/m);

    receiver.answer(200);
    expect((await app.mgmt.post(`${WEBHOOKS}/${hook.id}/deadletters/${first.id}/redeliver`)).status).toBe(204);
    const again = await receiver.next((r) => r.status === 200 && r.body?.id === first.eventId, 'the redelivered event');
    expectSigned(again, SECRET);
    const second = byTarget(two!);
    expect((await app.mgmt.delete(`${WEBHOOKS}/${hook.id}/deadletters/${second.id}`)).status).toBe(204);
    const left = await waitFor(async () => (await app.mgmt.get(`${WEBHOOKS}/${hook.id}/deadletters`)).json(), (p: Json) => p.total === 0, {
      what: 'no dead letters left',
    });
    expect(left.content).toEqual([]);
    expect((await app.mgmt.get(`${WEBHOOKS}/${hook.id}/deadletters/${second.id}`)).status).toBe(404);
  });

  it("delivers config.yaml's webhooks, whose secret no reply shows", async () => {
    const list = (await app.mgmt.get(`${WEBHOOKS}?q=name==from-config`)).json();
    expect(list.total).toBe(1);
    expect(list.content[0]).toMatchObject({ name: 'from-config', url: configured.url, kinds: ['target'], enabled: true, createdBy: 'config.yaml' });
    expect(JSON.stringify(list)).not.toContain('the-config-secret-1');
    const [target] = await createTargets(app, uid('cfg'), 1);
    const got = await configured.next((r) => r.body?.data.controllerId === target, 'the configured webhook');
    expectSigned(got, 'the-config-secret-1');
  });

  it('changes and deletes a webhook; a disabled one gets nothing new', async () => {
    const receiver = await startReceiver();
    const hook = await createWebhook(app, { url: receiver.url, kinds: ['target'] });
    const put = await app.mgmt.put(`${WEBHOOKS}/${hook.id}`, { json: { enabled: false, secret: 'another-secret-123' } });
    expect(put.status, put.text).toBe(200);
    expect(put.json()).toMatchObject({ enabled: false });
    expect(put.json()).not.toHaveProperty('secret');
    await createTargets(app, uid('off'), 1);
    await app.mgmt.put(`${WEBHOOKS}/${hook.id}`, { json: { enabled: true } });
    const [on] = await createTargets(app, uid('on'), 1);
    const got = await receiver.next((r) => r.body?.data.controllerId === on, 'the event after enabling');
    expectSigned(got, 'another-secret-123');
    expect(receiver.received).toHaveLength(1);
    expect((await app.mgmt.delete(`${WEBHOOKS}/${hook.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${WEBHOOKS}/${hook.id}`)).status).toBe(404);
    expect((await app.mgmt.get(`${WEBHOOKS}/${hook.id}/deadletters`)).status).toBe(404);
  });
});
