/**
 * DMF faults, through a private broker this file owns: every kind of bad message is rejected into the
 * dead-letter queue and the connector carries on; a reply-to exchange that does not exist (for
 * assignments: dropped; for PINGs, more of them than the prefetch: dead-lettered, others served); a
 * message that keeps failing (dead-lettered after a bounded number of tries); the
 * broker restarted while actions are being assigned (the connector reconnects, nothing assigned is
 * lost, nothing published before the restart makes a second action).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION, type ActionRecord } from '../../src/domain/action.js';
import { LOCAL_STORES } from '../helpers/app.js';
import type { SendOptions } from '../helpers/rabbitmq.js';
import { seedDistributionSet } from '../helpers/seed.js';
import { newThingId, startDmfApp, useRabbit, type DmfApp } from './fixture.js';

const rabbit = useRabbit(2 * LOCAL_STORES.length);
const thing = (): string => newThingId('fault');
const DLQ = 'dmf_connector_deadletter_ttl';

async function register(app: DmfApp, id: string, replyTo?: string): Promise<void> {
  await app.gateway.thingCreated(app.tenant, id, undefined, replyTo);
  await vi.waitFor(async () => expect(await app.target(id)).toBeDefined(), { timeout: 10_000 });
}

async function assign(app: DmfApp, id: string, ds: number): Promise<number> {
  const res = await app.mgmt.post(`/rest/v1/targets/${id}/assignedDS`, { json: { id: ds, type: 'forced' } });
  expect(res.status, res.text).toBe(200);
  return res.json().assignedActions[0].id as number;
}

// one vhost per describe and store: the bad messages on v1 (memory) and v2 (Redis), the restart on v3 and v4
describe.each(LOCAL_STORES)('bad messages and a missing reply-to exchange (%s store)', (kind) => {
  const vhost = `v${1 + LOCAL_STORES.indexOf(kind)}`;
  let app: DmfApp;
  let known: string;
  let running: number;
  let sent = 0;
  beforeAll(async () => {
    app = await startDmfApp(kind, rabbit(), vhost, { quotas: { maxAttributeEntriesPerTarget: 3, maxMessagesPerActionStatus: 5 } });
    known = thing();
    await register(app, known);
    running = await assign(app, known, (await seedDistributionSet(app)).ds.id);
    await app.gateway.next(known, 'DOWNLOAD_AND_INSTALL');
  });
  afterAll(async () => {
    await app?.gateway.close();
    await app?.server.close();
  });

  const t = (): string => app.tenant;
  const cases: [string, () => SendOptions][] = [
    ['no type header', () => ({ headers: { tenant: t(), thingId: known } })],
    ['no tenant header', () => ({ headers: { type: 'THING_CREATED', thingId: thing() }, replyTo: app.gateway.exchange })],
    ['an unknown tenant', () => ({ headers: { type: 'THING_CREATED', tenant: 'NOPE', thingId: thing() }, replyTo: app.gateway.exchange })],
    ['an unknown type', () => ({ headers: { type: 'THING_EXPLODED', tenant: t(), thingId: known } })],
    ['an event without topic', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known }, body: {} })],
    ['an unknown topic', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'SELF_DESTRUCT' }, body: {} })],
    ['bad JSON', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ATTRIBUTES' }, body: '{"attributes": ' })],
    ['a non-JSON content type', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ATTRIBUTES' }, body: 'a=1', contentType: 'text/plain' })],
    ['a status without actionStatus', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: running } })],
    ['an unknown action status', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: running, actionStatus: 'EXPLODED' } })],
    ['a status for an action that does not exist', () => ({ headers: { type: 'EVENT', tenant: t(), topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: 999_999, actionStatus: 'RUNNING' } })],
    ['a status for another thing\'s action', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: 'someone-else', topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: running, actionStatus: 'RUNNING' } })],
    ['CANCELED for an action that is not being canceled', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: running, actionStatus: 'CANCELED' } })],
    ['too many messages in one status (quota)', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ACTION_STATUS' }, body: { actionId: running, actionStatus: 'RUNNING', message: ['1', '2', '3', '4', '5', '6'] } })],
    ['too many attributes (quota)', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: known, topic: 'UPDATE_ATTRIBUTES' }, body: { attributes: { a: '1', b: '2', c: '3', d: '4' } } })],
    ['attributes of a thing that is not registered', () => ({ headers: { type: 'EVENT', tenant: t(), thingId: thing(), topic: 'UPDATE_ATTRIBUTES' }, body: { attributes: { a: '1' } } })],
    ['THING_CREATED without reply_to', () => ({ headers: { type: 'THING_CREATED', tenant: t(), thingId: thing() } })],
    ['THING_CREATED with a thing id that has a space', () => ({ headers: { type: 'THING_CREATED', tenant: t(), thingId: 'a b' }, replyTo: app.gateway.exchange })],
    ['THING_REMOVED of a thing that is not registered', () => ({ headers: { type: 'THING_REMOVED', tenant: t(), thingId: thing() } })],
  ];

  it.each(cases)('rejects %s into the dead-letter queue', async (_name, build) => {
    const message = build();
    await app.gateway.send(message);
    sent++;
    await vi.waitFor(async () => expect(await app.gateway.queueDepth(DLQ)).toBe(sent), { timeout: 10_000 });
    const dead = await app.gateway.get(DLQ);
    sent--;
    expect(dead?.headers?.['x-death']?.[0]?.reason).toBe('rejected');
    expect(dead?.headers?.['type']).toBe(message.headers['type']);
  });

  it('still works after all that: the action takes its status, attributes are stored', async () => {
    await app.gateway.status(app.tenant, known, running, 'RUNNING');
    await app.gateway.event(app.tenant, known, 'UPDATE_ATTRIBUTES', { attributes: { a: '1' } });
    await vi.waitFor(async () => expect((await app.target(known))?.attributes).toEqual({ a: '1' }));
    const stored = (await app.store.get<ActionRecord>(app.tenant, ACTION, running))?.value;
    expect(stored?.entries).toBe(2);
    expect(await app.gateway.queueDepth(DLQ)).toBe(0);
    const metrics = (await app.anon.get('/metrics')).text;
    expect(metrics).toContain(`dmf_messages_received_total{outcome="rejected"} ${cases.length}`);
    expect(metrics).toContain('dmf_connected 1');
  });

  it('drops messages to a reply-to exchange that does not exist, and keeps serving the others', async () => {
    const lost = thing();
    await register(app, lost, 'no.such.exchange');
    expect((await app.target(lost))?.address).toBe(`amqp://${vhost}/no.such.exchange`);
    const { ds } = await seedDistributionSet(app);
    const orphan = await assign(app, lost, ds.id);
    // the effect is handled (dropped with a warning), not retried for ever
    await vi.waitFor(async () => expect(await app.store.pendingEffects(app.tenant)).toBe(0), { timeout: 10_000 });
    expect((await app.store.get<ActionRecord>(app.tenant, ACTION, orphan))?.value.status).toBe('running');
    const fine = thing();
    await register(app, fine);
    const action = await assign(app, fine, ds.id);
    expect((await app.gateway.next(fine, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(action);
    expect((await app.anon.get('/metrics')).text).toContain('dmf_messages_published_total{outcome="dropped"} 1');
  });

  it('dead-letters PINGs that cannot be answered; more of them than the prefetch do not stall other senders', { timeout: 60_000 }, async () => {
    // more than the prefetch (64), from another tenant and sender, ahead of the good messages in the queue
    const poison = 80;
    for (let i = 0; i < poison; i++) {
      await app.gateway.send({ headers: { type: 'PING', tenant: 'OTHER', sender: 'broken' }, replyTo: 'no.such.reply', correlationId: `bad-${i}` });
    }
    await app.gateway.send({ headers: { type: 'PING', tenant: app.tenant }, replyTo: app.gateway.exchange, correlationId: 'good-ping' });
    const id = thing();
    await app.gateway.thingCreated(app.tenant, id);
    await app.gateway.take((m) => m.type === 'PING_RESPONSE' && m.correlationId === 'good-ping', 'PING_RESPONSE', 30_000);
    await vi.waitFor(async () => expect(await app.target(id)).toBeDefined(), { timeout: 30_000 });
    // every one of them is dead-lettered (not requeued for ever), the receiver queue is empty
    await vi.waitFor(async () => expect(await app.gateway.queueDepth(DLQ)).toBe(poison), { timeout: 30_000 });
    expect(await app.gateway.queueDepth('dmf_receiver')).toBe(0);
    const dead = await app.gateway.get(DLQ);
    expect(dead?.headers?.['x-death']?.[0]?.reason).toBe('rejected');
    expect(dead?.headers?.['type']).toBe('PING');
    while ((await app.gateway.get(DLQ)) !== undefined);
  });

  it('dead-letters a message that keeps failing after a bounded number of tries, and serves others meanwhile', { timeout: 60_000 }, async () => {
    // an internal exchange exists but refuses publishing: not a missing exchange, so the PING is tried again
    await app.gateway.send({ headers: { type: 'PING', tenant: app.tenant }, replyTo: 'amq.rabbitmq.trace', correlationId: 'refused' });
    const id = thing();
    await register(app, id);
    // the dead-letter queue may still get a late copy of an earlier poison message (a closed channel
    // requeues what it had in flight, and dead-lettering is at least once): look for this one among them
    let dead: Awaited<ReturnType<typeof app.gateway.get>>;
    await vi.waitFor(async () => {
      dead = await app.gateway.get(DLQ);
      expect(dead?.correlationId).toBe('refused');
    }, { timeout: 30_000, interval: 100 });
    expect(dead?.replyTo).toBe('amq.rabbitmq.trace');
    expect(dead?.headers?.['x-peregrine-attempts']).toBe(4);
    expect(await app.gateway.queueDepth('dmf_receiver')).toBe(0);
  });
});

// the messages wait in the effects queue of the store: Redis Streams on redis (the cluster's per-slot reading is the same code)
describe.each(LOCAL_STORES)('a broker restart while actions are being assigned (%s store)', (kind) => {
  it('reconnects, delivers every assignment, and makes no second action', { timeout: 90_000 }, async () => {
    const app = await startDmfApp(kind, rabbit(), `v${1 + LOCAL_STORES.length + LOCAL_STORES.indexOf(kind)}`, { durableGateway: true });
    try {
      const { ds } = await seedDistributionSet(app);
      const things = Array.from({ length: 8 }, () => thing());
      for (const id of things) await register(app, id);
      const actions = new Map<string, number>();
      for (const id of things.slice(0, 4)) actions.set(id, await assign(app, id, ds.id));
      for (const id of things.slice(0, 4)) expect((await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL')).body.actionId).toBe(actions.get(id));
      // reports published just before the restart: persistent, in the durable receiver queue
      for (const id of things.slice(0, 4)) await app.gateway.status(app.tenant, id, actions.get(id) as number, 'RUNNING');
      await rabbit().stop();
      // assignments while the broker is away: committed, their messages wait in the effects queue
      for (const id of things.slice(4)) actions.set(id, await assign(app, id, ds.id));
      await rabbit().start();
      for (const id of things.slice(4)) {
        expect((await app.gateway.next(id, 'DOWNLOAD_AND_INSTALL', 60_000)).body.actionId).toBe(actions.get(id));
      }
      for (const id of things) await app.gateway.status(app.tenant, id, actions.get(id) as number, 'FINISHED');
      await vi.waitFor(async () => {
        for (const id of things) expect((await app.store.get<ActionRecord>(app.tenant, ACTION, actions.get(id) as number))?.value.status).toBe('finished');
      }, { timeout: 20_000 });
      for (const id of things) {
        const list = (await app.mgmt.get(`/rest/v1/targets/${id}/actions`)).json();
        expect(list.total).toBe(1);
        // any message delivered twice (at least once) names the one action
        for (const m of app.gateway.pending(id)) if (m.body?.actionId !== undefined) expect(m.body.actionId).toBe(actions.get(id));
      }
    } finally {
      await app.gateway.close();
      await app.server.close();
    }
  });
});
