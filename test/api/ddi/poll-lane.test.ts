/**
 * The poll's express lane (src/ddi/poll-lane.ts, src/http/lane.ts) answers the steady poll of a known
 * device without the generic path, and must answer exactly what the generic path answers. Requests
 * the lane leaves alone are forced here by spellings it does not take (a lower-case token scheme,
 * HEAD, CBOR); `http_express_lane_requests_total` tells which path answered.
 */
import { Agent, request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, GATEWAY_KEY, laneCount as lanes, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const ROUTE = 'ddi GET /';

const laneCount = (app: DdiApp): Promise<number> => lanes(app, ROUTE);

interface Seen {
  readonly status: number;
  readonly etag: string | null;
  readonly type: string | null;
  readonly text: string;
}

async function poll(app: DdiApp, cid: string, headers: Record<string, string>): Promise<Seen> {
  const res = await app.device(cid, headers).get();
  return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type'), text: res.text };
}

/** Polls once with `headers`; returns what came back and whether the lane answered it. */
async function pollCounted(app: DdiApp, cid: string, headers: Record<string, string>): Promise<Seen & { readonly lane: boolean }> {
  const before = await laneCount(app);
  const seen = await poll(app, cid, headers);
  return { ...seen, lane: (await laneCount(app)) === before + 1 };
}

describe.each(STORES)('poll express lane, %s store', (kind) => {
  it('answers the steady poll itself, byte for byte as the generic path does', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-1';
    const gateway = { authorization: `GatewayToken ${GATEWAY_KEY}` };
    const first = await pollCounted(app, cid, gateway); // registers: the generic path
    expect(first.status).toBe(200);
    expect(first.lane).toBe(false);
    await vi.waitFor(async () => expect((await pollCounted(app, cid, gateway)).lane).toBe(true), { timeout: 2000, interval: 20 });

    const token = (await targetOf(app, cid)).securityToken;
    const variants: [Record<string, string>, boolean][] = [
      [gateway, true],
      [{ authorization: `TargetToken ${token}` }, true],
      [{ authorization: `targettoken ${token}` }, false], // same credentials, spelled as the lane does not read them
      [{ authorization: `gatewaytoken ${GATEWAY_KEY}` }, false],
    ];
    const answers: Seen[] = [];
    for (const [headers, viaLane] of variants) {
      const seen = await pollCounted(app, cid, headers);
      expect(seen.lane).toBe(viaLane);
      const { lane: _, ...answer } = seen;
      answers.push(answer);
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]).toMatchObject({ status: 200, type: 'application/hal+json' });
    expect(answers[0]?.etag).toMatch(/^"0[0-9a-f]{16}"$/);

    const json = await pollCounted(app, cid, { ...gateway, accept: 'application/json' });
    expect(json).toMatchObject({ lane: true, status: 200, type: 'application/json', text: answers[0]?.text, etag: answers[0]?.etag });
    const cbor = await pollCounted(app, cid, { ...gateway, accept: 'application/cbor' });
    expect(cbor).toMatchObject({ lane: false, status: 200, type: 'application/cbor' });
    expect((await pollCounted(app, cid, { ...gateway, accept: 'text/html' })).status).toBe(406);

    const etag = answers[0]?.etag ?? '';
    const notModified = await pollCounted(app, cid, { ...gateway, 'if-none-match': etag });
    expect(notModified).toMatchObject({ lane: true, status: 304, etag, text: '' });
    const listed = await pollCounted(app, cid, { ...gateway, 'if-none-match': `"other", W/${etag}` });
    expect(listed).toMatchObject({ lane: true, status: 304, etag });
    const generic304 = await pollCounted(app, cid, { authorization: `gatewaytoken ${GATEWAY_KEY}`, 'if-none-match': etag });
    expect(generic304).toMatchObject({ lane: false, status: 304, etag, text: '' });

    const before = await laneCount(app);
    const head = await app.device(cid, gateway).head();
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(head.text).toBe('');
    expect(await laneCount(app)).toBe(before);
  });

  it('leaves bad credentials, unknown devices and odd paths to the generic path', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-2';
    await app.device(cid).get();
    await app.device(cid).get();
    const token = (await targetOf(app, cid)).securityToken;
    const before = await laneCount(app);
    expect((await poll(app, cid, { authorization: `TargetToken ${token}x` })).status).toBe(401);
    expect((await poll(app, cid, { authorization: 'GatewayToken wrong' })).status).toBe(401);
    expect((await poll(app, cid, { authorization: `TargetToken ${token} extra` })).status).toBe(401);
    expect((await poll(app, 'lane-unknown', { authorization: `TargetToken ${token}` })).status).toBe(401);
    const encoded = await app.anon.get(`${app.ddi}/lane%2D2`, { headers: { authorization: `GatewayToken ${GATEWAY_KEY}` } });
    expect(encoded.status).toBe(200); // the same device, its id percent-encoded
    expect(await laneCount(app)).toBe(before);
    // another spelling of the tenant is the same tenant; its links repeat the spelling of the path
    const lower = `/${app.tenant.toLowerCase()}/controller/v1/${cid}`;
    const res = await app.anon.get(lower, { headers: { authorization: `GatewayToken ${GATEWAY_KEY}` } });
    expect(res.status).toBe(200);
    expect(res.json()._links?.configData?.href).toContain(lower);
  });

  it('never answers from a reply the data has moved past', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-3';
    await app.device(cid).get();
    await app.device(cid).get();
    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, cid, ds.id);
    // the assignment's effects reach the target through the effects dispatcher: poll until they did
    const linked = async (name: string): Promise<void> => {
      await vi.waitFor(async () => {
        const res = await app.device(cid).get();
        expect(res.json()._links?.[name]?.href).toContain(`/${actionId}`);
      }, { timeout: 2000, interval: 20 });
    };
    await linked('deploymentBase');
    await vi.waitFor(async () => expect((await pollCounted(app, cid, { authorization: `GatewayToken ${GATEWAY_KEY}` })).lane).toBe(true), {
      timeout: 2000, interval: 20,
    });
    const cancel = await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${actionId}`);
    expect(cancel.status).toBe(204);
    await linked('cancelAction');
  });

  it("answers the generic path from the lane's reply, and never a text the data has moved past", async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-text';
    const gateway = { authorization: `GatewayToken ${GATEWAY_KEY}` };
    const generic = { authorization: `gatewaytoken ${GATEWAY_KEY}` }; // a spelling the lane leaves alone
    await app.device(cid).get();
    /** Polls through the lane until it answers, then twice through the generic path (the second from the kept text): all the same. */
    const same = async (): Promise<Seen> => {
      const viaLane = await vi.waitFor(async () => {
        const seen = await pollCounted(app, cid, gateway);
        expect(seen.lane).toBe(true);
        return seen;
      }, { timeout: 2000, interval: 20 });
      const { lane: _, ...answer } = viaLane;
      for (let i = 0; i < 2; i++) {
        const seen = await pollCounted(app, cid, generic);
        expect(seen.lane).toBe(false);
        const { lane: __, ...other } = seen;
        expect(other).toEqual(answer);
      }
      return answer;
    };
    const idle = await same();
    expect(idle.text).not.toContain('deploymentBase');
    // an assignment, its cancellation, the tenant's polling time: each a new reply on both paths
    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, cid, ds.id);
    await vi.waitFor(async () => expect((await poll(app, cid, generic)).text).toContain(`/deploymentBase/${actionId}`), { timeout: 2000, interval: 20 });
    expect((await same()).text).toContain(`/deploymentBase/${actionId}`);
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${actionId}`)).status).toBe(204);
    await vi.waitFor(async () => expect((await poll(app, cid, generic)).text).toContain(`/cancelAction/${actionId}`), { timeout: 2000, interval: 20 });
    const canceling = await same();
    expect(canceling.text).toContain(`/cancelAction/${actionId}`);
    const polling = await app.mgmt.put('/rest/v1/system/configs/pollingTime', { json: { value: '00:07:00' } });
    expect(polling.status).toBe(200);
    const slower = await same();
    expect(slower.text).toContain('"sleep":"00:07:00"');
    expect(slower.etag).not.toBe(canceling.etag);
  });

  it('follows a target replaced under the same controller id and a configuration change at once', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-6';
    await app.device(cid).get();
    const old = { authorization: `TargetToken ${(await targetOf(app, cid)).securityToken}` };
    await vi.waitFor(async () => expect((await pollCounted(app, cid, old)).lane).toBe(true), { timeout: 2000, interval: 20 });
    // deleted and created again with a token of its own: the old token is refused from the next poll on
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}`)).status).toBe(204);
    expect((await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: cid, name: cid, securityToken: 'lane-6-new-token' }] })).status).toBe(201);
    expect((await pollCounted(app, cid, old)).status).toBe(401);
    const renewed = { authorization: 'TargetToken lane-6-new-token' };
    expect((await poll(app, cid, renewed)).status).toBe(200);
    await vi.waitFor(async () => expect((await pollCounted(app, cid, renewed)).lane).toBe(true), { timeout: 2000, interval: 20 });
    // target tokens switched off for the tenant: refused from the next poll on
    const off = await app.mgmt.put('/rest/v1/system/configs/authentication.targettoken.enabled', { json: { value: false } });
    expect(off.status).toBe(200);
    expect(await pollCounted(app, cid, renewed)).toMatchObject({ status: 401, lane: false });
  });

  // a fleet whose cached values outnumber store.redisCacheEntries: the cache evicts what the slots were
  // made from, which leaves the slots current (a write of an evicted value still reaches them)
  it.skipIf(kind === 'memory')('keeps answering when the Redis cache evicts what its slots were made from', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' }, redisCacheEntries: 8 });
    const gateway = { authorization: `GatewayToken ${GATEWAY_KEY}` };
    const cids = Array.from({ length: 6 }, (_, i) => `lane-evict-${i}`);
    for (const cid of cids) await app.device(cid).get(); // registrations are writes: every slot is made again after them
    for (const cid of cids) {
      await vi.waitFor(async () => expect((await pollCounted(app, cid, gateway)).lane).toBe(true), { timeout: 2000, interval: 20 });
    }
    for (const cid of cids) expect((await pollCounted(app, cid, gateway)).lane).toBe(true);
    // and a write still reaches the device's next poll (an evicted value's write: the contract case in redis-cache.test.ts)
    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, cids[0]!, ds.id);
    await vi.waitFor(async () => expect((await poll(app, cids[0]!, gateway)).text).toContain(`/${actionId}`), { timeout: 2000, interval: 20 });
  });

  it('leaves a time-forced action to the generic path until its force time, then answers it', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'lane-7';
    await app.device(cid).get();
    const { ds } = await seedDistributionSet(app);
    const forceTime = Date.now() + 1500;
    const actionId = await assign(app, cid, ds.id, { type: 'timeforced', forcetime: forceTime });
    const gateway = { authorization: `GatewayToken ${GATEWAY_KEY}` };
    await vi.waitFor(async () => expect((await poll(app, cid, gateway)).text).toContain(`/${actionId}`), { timeout: 1000, interval: 20 });
    // before the force time the body depends on the time: never from the lane, however often the device polls
    for (let i = 0; i < 5 && Date.now() < forceTime - 300; i++) expect((await pollCounted(app, cid, gateway)).lane).toBe(false);
    await vi.waitFor(async () => expect((await pollCounted(app, cid, gateway)).lane).toBe(true), { timeout: 4000, interval: 50 });
    expect(Date.now()).toBeGreaterThanOrEqual(forceTime);
  });

  it("records the lane's polls: the newest time, and a peer address at most ddi.pollAddressRefreshMs old", async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' }, pollFlushMs: 50, pollAddressRefreshMs: 400 });
    const cid = 'lane-5';
    const gateway = { authorization: `GatewayToken ${GATEWAY_KEY}` };
    await app.device(cid).get();
    await vi.waitFor(async () => expect((await pollCounted(app, cid, gateway)).lane).toBe(true), { timeout: 2000, interval: 20 });
    await new Promise((r) => setTimeout(r, 120)); // deliberately past pollFlushMs (50), a flush in between: the next lane poll is noted again
    const before = Date.now();
    expect((await pollCounted(app, cid, gateway)).lane).toBe(true);
    expect((await pollCounted(app, cid, gateway)).lane).toBe(true);
    const recorded = async (): Promise<{ lastControllerRequestAt: number; address: string; ipAddress: string }> =>
      (await app.mgmt.get(`/rest/v1/targets/${cid}`)).json();
    await vi.waitFor(async () => {
      const t = await recorded();
      expect(t.lastControllerRequestAt).toBeGreaterThanOrEqual(before);
      expect(t.address).toBe('http://127.0.0.1');
      expect(t.ipAddress).toBe('127.0.0.1');
    }, { timeout: 2000, interval: 25 });

    // the device moves to another address (127.0.0.2 reaches the loopback listener too): once the address read
    // last is older than the refresh, the lane's next poll records the new one
    const moved = new Agent({ localAddress: '127.0.0.2' });
    try {
      await new Promise((r) => setTimeout(r, 450)); // deliberately past pollAddressRefreshMs (400)
      const lanes = await laneCount(app);
      const res = await request(app.url + app.device(cid).base, { headers: gateway, dispatcher: moved });
      await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(await laneCount(app)).toBe(lanes + 1);
      await vi.waitFor(async () => {
        const t = await recorded();
        expect(t.address).toBe('http://127.0.0.2');
        expect(t.ipAddress).toBe('127.0.0.2');
      }, { timeout: 2000, interval: 25 });
    } finally {
      await moved.close();
    }
  });

  it('answers behind a trusted proxy with the forwarded base URL and records the forwarded address', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' }, trustedProxies: ['127.0.0.1', '::1'], pollFlushMs: 50 });
    const cid = 'lane-6';
    const via = (host: string, client: string): Record<string, string> => ({
      authorization: `GatewayToken ${GATEWAY_KEY}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-for': `${client}, 10.9.9.9`,
    });
    await app.device(cid, via('updates.example.com', '192.0.2.7')).get();
    const first = await vi.waitFor(async () => {
      const seen = await pollCounted(app, cid, via('updates.example.com', '192.0.2.7'));
      expect(seen.lane).toBe(true);
      return seen;
    }, { timeout: 2000, interval: 20 });
    expect(first.text).toContain('"href":"https://updates.example.com/');
    // another forwarded host: not the memoised reply
    const other = await pollCounted(app, cid, via('other.example.com', '192.0.2.7'));
    expect(other.lane).toBe(false);
    expect(other.text).toContain('"href":"https://other.example.com/');
    await new Promise((r) => setTimeout(r, 120)); // deliberately past pollFlushMs (50), a flush in between: the next lane poll reads the address again
    expect((await pollCounted(app, cid, via('other.example.com', '198.51.100.4'))).lane).toBe(true);
    await vi.waitFor(async () => {
      expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json<{ address: string }>().address).toBe('http://198.51.100.4');
    }, { timeout: 2000, interval: 25 });
  });

  it('never accepts a token holding whitespace, as the generic path never does', async () => {
    const key = 'gw key-1';
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    // a gateway key with whitespace cannot be set at all (issue 23, audit 7)
    expect((await app.mgmt.put('/rest/v1/system/configs/authentication.gatewaytoken.key', { json: { value: key } })).status).toBe(400);
    const cid = 'lane-7';
    const put = await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: cid, name: cid, securityToken: 'tok-1' }] });
    expect(put.status).toBe(201);
    const good = { authorization: 'TargetToken tok-1' };
    await app.device(cid, good).get(); // registers
    await vi.waitFor(async () => expect((await pollCounted(app, cid, good)).lane).toBe(true), { timeout: 2000, interval: 20 });
    const gateway = await pollCounted(app, cid, { authorization: `GatewayToken ${key}` });
    expect([gateway.status, gateway.lane]).toEqual([401, false]);

    // the target's own token with whitespace in it
    const changed = await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { securityToken: 'tok 2' } });
    expect(changed.status).toBe(200);
    const spaced = await pollCounted(app, cid, { authorization: 'TargetToken tok 2' });
    expect([spaced.status, spaced.lane]).toEqual([401, false]);
    expect((await poll(app, cid, good)).status).toBe(401); // the old token went with the change
  });

  it('answers a device over its poll rate with the generic 429', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:30' }, exemptCidrs: [] }); // 127.0.0.1 paced too
    const cid = 'lane-4';
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await app.device(cid).get()).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    const res = await app.device(cid).get();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });
});
