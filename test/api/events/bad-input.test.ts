/**
 * Live events refuse what they must (issue 22, bad input): no or wrong credentials 401, a kind the
 * caller may not read 403, another tenant's rollout 404, a malformed Last-Event-ID or kind 400, a
 * plain GET of the WebSocket endpoint 400 (a WebSocket is upgraded first and closed with 4000 + the status). A subscriber that never reads is dropped and the server
 * and the other subscribers carry on; a shutdown ends every stream with a reason.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basic, expectRefused, openSse, type SseStream } from '../../helpers/sse.js';
import { WebSocket } from 'undici';
import { ADMIN_HASH, http, startTestServer, type TestServer } from '../../helpers/server.js';
import { createSet, createTargets, fleet, readyRollout, uid, type RolloutApp } from '../rollouts/fixture.js';

const ERR = {
  unauthorized: 'hawkbit.server.error.unauthorized',
  permission: 'hawkbit.server.error.insufficientPermission',
  param: 'hawkbit.server.error.rest.param.invalid',
  notFound: 'hawkbit.server.error.repo.entityNotFound',
};
const ADMIN = basic('admin', 'admin');
const TARGETS_ONLY = basic('targets', 'admin');
const NOBODY = basic('nobody', 'admin');
const OTHER = basic('other', 'admin');

describe('live events: bad input', () => {
  let server: TestServer;
  let rollout: number;
  const streams: SseStream[] = [];
  const refused = (path: string, headers: Record<string, string>) => refusal(server.url + path, headers);
  const sse = async (path: string, headers: Record<string, string>): Promise<SseStream> => {
    const s = await openSse(server.url + path, headers);
    streams.push(s);
    return s;
  };
  beforeAll(async () => {
    server = await startTestServer({
      limits: { eventBufferBytes: 16_384 },
      tenants: [
        {
          name: 'DEFAULT',
          users: [
            { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] },
            { username: 'targets', password: ADMIN_HASH, permissions: ['READ_TARGET'] },
            { username: 'nobody', password: ADMIN_HASH, permissions: ['READ_REPOSITORY'] },
          ],
        },
        { name: 'OTHER', users: [{ username: 'other', password: ADMIN_HASH, permissions: ['ALL'] }] },
      ],
    });
    const client = http(server.url);
    const app = { url: server.url, tenant: 'DEFAULT', mgmt: { ...client, ...withAdmin(client) } } as unknown as RolloutApp;
    const ds = (await createSet(app)).id;
    const prefix = uid('bad');
    await createTargets(app, prefix, 2);
    rollout = (await readyRollout(app, { name: uid('bad'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 1 })).id;
  });
  afterAll(() => {
    for (const s of streams) s.close();
  });

  it('without credentials or with a wrong password: 401 and the error body', async () => {
    expectRefused(await sse('/rest/v1/events', {}), 401, ERR.unauthorized);
    expectRefused(await sse(`/rest/v1/rollouts/${rollout}/events`, basic('admin', 'wrong')), 401, ERR.unauthorized);
    // a WebSocket is upgraded first, then closed with 4000 + the status and the error message
    expect(await refused('/rest/v1/ws', {})).toMatchObject({ code: 4401, reason: expect.stringMatching(/.+/) });
    expect((await refused('/rest/v1/ws', basic('admin', 'wrong'))).code).toBe(4401);
  });

  it('kinds the caller may not read: 403; by default only the kinds it may read', async () => {
    expectRefused(await sse('/rest/v1/events?kinds=rollout', TARGETS_ONLY), 403, ERR.permission);
    expectRefused(await sse(`/rest/v1/rollouts/${rollout}/events`, TARGETS_ONLY), 403, ERR.permission);
    expectRefused(await sse('/rest/v1/events', NOBODY), 403, ERR.permission);
    expect(await refused(`/rest/v1/ws?rollout=${rollout}`, TARGETS_ONLY)).toEqual({ code: 4403, reason: 'User targets lacks the permission READ_ROLLOUT' });
    // a page of another site (cross-site WebSocket hijacking)
    expect((await refused('/rest/v1/ws', { ...ADMIN, origin: 'https://evil.example' })).code).toBe(4403);
    const own = await sse('/rest/v1/events', TARGETS_ONLY);
    const snapshot = await own.next((e) => e.event === 'snapshot');
    expect(Object.keys(snapshot.data)).toEqual(['targets']);
  });

  it("another tenant's rollout and unknown rollouts: 404; malformed ids, kinds and Last-Event-IDs: 400", async () => {
    expectRefused(await sse(`/rest/v1/rollouts/${rollout}/events`, OTHER), 404, ERR.notFound);
    expectRefused(await sse('/rest/v1/rollouts/987654/events', ADMIN), 404, ERR.notFound);
    expectRefused(await sse('/rest/v1/rollouts/abc/events', ADMIN), 400, ERR.param);
    expectRefused(await sse('/rest/v1/events?kinds=target,bogus', ADMIN), 400, ERR.param);
    for (const bad of ['x', '1-2-3', '-1', '1.5-0', '0x1-0']) {
      expectRefused(await sse('/rest/v1/events', { ...ADMIN, 'last-event-id': bad }), 400, ERR.param);
    }
    expectRefused(await sse('/rest/v1/events?lastEventId=%00', ADMIN), 400, ERR.param);
    expect((await refused(`/rest/v1/ws?rollout=${rollout}`, OTHER)).code).toBe(4404);
    const malformed = await refused('/rest/v1/ws?rollout=abc', ADMIN);
    expect(malformed).toEqual({ code: 4400, reason: "rollout must be a rollout id, got 'abc'" });
  });

  it('a plain GET of the WebSocket endpoint: 400 naming the upgrade', async () => {
    const res = await http(server.url).get('/rest/v1/ws', { headers: ADMIN });
    expect(res.status).toBe(400);
    expect(res.json().message).toContain('WebSocket');
  });

  it('drops a subscriber that never reads; the server and the other subscribers carry on', async () => {
    const reader = await sse('/rest/v1/events?kinds=target', ADMIN);
    await reader.next((e) => e.event === 'snapshot');
    const client = http(server.url);
    const openStreams = async (): Promise<number> => Number(/^event_streams_open (\d+)/m.exec((await client.get('/metrics')).text)?.[1] ?? 0);
    const open = await openStreams();
    // a client that sends its request and then reads nothing
    const stalled = connect(server.port, '127.0.0.1');
    stalled.on('error', () => undefined);
    await new Promise<void>((resolve) => stalled.on('connect', () => resolve()));
    stalled.write(`GET /rest/v1/events?kinds=target HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN['authorization']}\r\n\r\n`);
    stalled.pause();
    await vi.waitFor(async () => expect(await openStreams()).toBe(open + 1), { timeout: 10_000, interval: 20 }); // its stream is open
    const slowDrops = async (): Promise<number> => {
      const text = (await client.get('/metrics')).text;
      return Number(/^event_streams_ended_total\{reason="slow"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const long = 'd'.repeat(200);
    let batches = 0;
    // target events of ~300 bytes each until the server gives up on the stalled client (kernel buffers take a few MB)
    while ((await slowDrops()) === 0 && batches < 80) {
      const body = Array.from({ length: 500 }, (_, i) => ({ controllerId: `${long}-${batches}-${i}`, name: `n${i}` }));
      const res = await client.post('/rest/v1/targets', { headers: ADMIN, json: body });
      expect(res.status, res.text).toBe(201);
      batches++;
      await new Promise((r) => setTimeout(r, 50)); // deliberately paced: the server gets time to notice the stalled client
    }
    expect(await slowDrops()).toBe(1);
    stalled.destroy();
    expect((await client.get('/health')).status).toBe(200);
    // the reading subscriber got the last batch's targets
    await reader.next((e) => e.event === 'target' && e.data.controllerId === `${long}-${batches - 1}-499`, 15_000, 'the last target');
  }, 60_000);

  it('a shutdown ends every stream with a reason', async () => {
    const s = await sse('/rest/v1/events', ADMIN);
    await s.next((e) => e.event === 'snapshot');
    await server.close();
    const close = await s.next((e) => e.event === 'close', 5_000, 'the close event');
    expect(close.data.reason).toContain('shutting down');
    await s.ended;
  });
});

function withAdmin(client: ReturnType<typeof http>): Partial<ReturnType<typeof http>> {
  const auth = ['admin', 'admin'] as const;
  return {
    get: (p, o) => client.get(p, { auth, ...o }),
    post: (p, o) => client.post(p, { auth, ...o }),
    put: (p, o) => client.put(p, { auth, ...o }),
    delete: (p, o) => client.delete(p, { auth, ...o }),
  };
}

/** Opens a WebSocket and waits until the server closes it: the close code and reason. */
function refusal(url: string, headers: Record<string, string>): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(url.replace('http', 'ws'), { headers });
  return new Promise((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })));
}
