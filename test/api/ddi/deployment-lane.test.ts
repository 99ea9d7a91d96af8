/**
 * deploymentBase kept per action (src/ddi/deployment-replies.ts, set-modules-memo.ts) and answered by its
 * express lane (deployment-lane.ts): the same bytes as the generic path, never a reply an input has moved
 * past, and the fetch's side effects (the `retrieved` entry, a lapsed window's cancel) exactly as before.
 * A fetch with `?actionHistory=1` is never kept (an action history is asked for): it is built anew by the
 * generic path every time, and with no device messages it has the same body, so it is what a kept reply
 * is compared with. `http_express_lane_requests_total` tells which path answered.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { ARTIFACT, DS, SM, SM_TYPE, type ArtifactRecord } from '../../../src/domain/repository.js';
import type { Store } from '../../../src/store/port.js';
import { STORES, storeOptions } from '../../helpers/app.js';
import { seedDistributionSet, type SeededDs } from '../../helpers/seed.js';
import { ADMIN, ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { assign, feedback, GATEWAY, GATEWAY_KEY, laneCount as lanes, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const ROUTE = 'ddi GET /deploymentBase/:actionId';

const laneCount = (app: DdiApp): Promise<number> => lanes(app, ROUTE);

interface Seen {
  readonly status: number;
  readonly etag: string | null;
  readonly type: string | null;
  readonly text: string;
  readonly lane: boolean;
}

/** One fetch of `path` (after the device's base), and whether the lane answered it. */
async function fetchCounted(app: DdiApp, cid: string, path: string, headers: Record<string, string> = GATEWAY): Promise<Seen> {
  const before = await laneCount(app);
  const res = await app.device(cid, headers).get(path);
  const lane = (await laneCount(app)) === before + 1;
  return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type'), text: res.text, lane };
}

const body = ({ status, etag, type, text }: Seen): Omit<Seen, 'lane'> => ({ status, etag, type, text });

/** Rewrites a record through the store, as any writer would (the store invalidates the cached reads). */
async function rewrite<T>(store: Store, tenant: string, kind: string, id: number, change: (v: T) => T | null): Promise<void> {
  const old = await store.get<T>(tenant, kind, id);
  if (old === undefined) throw new Error(`no ${kind} ${id}`);
  const r = await store.commit(tenant, { writes: [{ kind, id, expect: old.version, before: old.value, after: change(old.value) }] });
  if (!r.ok) throw new Error(`rewrite of ${kind} ${id} failed: ${JSON.stringify(r)}`);
}

async function retrievedCount(app: DdiApp, cid: string, id: number): Promise<number> {
  const res = await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}/status?limit=100`);
  expect(res.status).toBe(200);
  return res.json<{ content: { type: string }[] }>().content.filter((e) => e.type === 'retrieved').length;
}

interface Fixture {
  readonly app: DdiApp;
  readonly cid: string;
  readonly seeded: SeededDs;
  readonly actionId: number;
  /** The poll link's path after the device's base: `/deploymentBase/{id}?c=...`. */
  readonly path: string;
}

/** A registered device with an assigned set, its deploymentBase fetched once (retrieved) and then kept. */
async function fetchedOnce(kind: (typeof STORES)[number], cid: string): Promise<Fixture> {
  const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
  await app.device(cid).get();
  const seeded = await seedDistributionSet(app, { metadata: { hidden: { value: 'no', targetVisible: false } } });
  const actionId = await assign(app, cid, seeded.ds.id);
  const href = await vi.waitFor(async () => {
    const link = (await app.device(cid).get()).json<{ _links?: { deploymentBase?: { href: string } } }>()._links?.deploymentBase?.href;
    expect(link).toBeDefined();
    return link as string;
  }, { timeout: 10_000, interval: 20 });
  const path = href.slice(href.indexOf('/deploymentBase/'));
  const first = await fetchCounted(app, cid, path);
  expect(first).toMatchObject({ status: 200, lane: false });
  await vi.waitFor(async () => expect((await fetchCounted(app, cid, path)).lane).toBe(true), { timeout: 10_000, interval: 20 });
  return { app, cid, seeded, actionId, path };
}

/**
 * The next fetch (lane or generic) and the generic path's answer from the kept reply (a token spelling the lane
 * does not read; its text is kept with the reply after the first) equal a reply the generic path builds anew;
 * returns its JSON.
 */
async function nextEqualsGeneric(f: Fixture): Promise<{ deployment: { chunks: Record<string, unknown>[] } }> {
  const next = await fetchCounted(f.app, f.cid, f.path);
  const generic = await fetchCounted(f.app, f.cid, `/deploymentBase/${f.actionId}?actionHistory=1`);
  expect(generic.lane).toBe(false);
  expect(body(next)).toEqual(body(generic));
  for (let i = 0; i < 2; i++) {
    const kept = await fetchCounted(f.app, f.cid, f.path, { authorization: `gatewaytoken ${GATEWAY_KEY}` });
    expect(kept.lane).toBe(false);
    expect(body(kept)).toEqual(body(generic));
  }
  expect(next.status).toBe(200);
  return JSON.parse(next.text) as { deployment: { chunks: Record<string, unknown>[] } };
}

describe.each(STORES)('deploymentBase kept and answered by its lane, %s store', (kind) => {
  it('answers a kept fetch byte for byte as the generic path, and records retrieved once', async () => {
    const f = await fetchedOnce(kind, 'dep-1');
    const { app, cid, path, actionId } = f;
    const token = (await targetOf(app, cid)).securityToken;
    const kept = await fetchCounted(app, cid, path);
    expect(kept.lane).toBe(true);
    expect(kept).toMatchObject({ status: 200, type: 'application/hal+json' });
    expect(kept.etag).toMatch(/^"0[0-9a-f]{16}"$/);
    const variants: [string, Record<string, string>, boolean][] = [
      [path, { authorization: `TargetToken ${token}` }, true],
      [path.replace(/\?.*$/, ''), GATEWAY, true],
      [path, { authorization: `targettoken ${token}` }, false], // same credentials, spelled as the lane does not read them
      [`/deploymentBase/${actionId}?actionHistory=1`, GATEWAY, false], // not kept: built anew
      [`/deploymentBase/${actionId}?c=1&actionHistory=0`, GATEWAY, false],
    ];
    for (const [p, headers, viaLane] of variants) {
      const seen = await fetchCounted(app, cid, p, headers);
      expect([p, seen.lane]).toEqual([p, viaLane]);
      expect(body(seen)).toEqual(body(kept));
    }
    const json = await fetchCounted(app, cid, path, { ...GATEWAY, accept: 'application/json' });
    expect(json).toMatchObject({ lane: true, status: 200, type: 'application/json', text: kept.text, etag: kept.etag });
    expect(await fetchCounted(app, cid, path, { ...GATEWAY, accept: 'application/cbor' })).toMatchObject({ lane: false, status: 200, type: 'application/cbor' });
    expect(await fetchCounted(app, cid, path, { ...GATEWAY, 'if-none-match': kept.etag ?? '' })).toMatchObject({ lane: true, status: 304, etag: kept.etag, text: '' });
    expect(await fetchCounted(app, cid, path, { authorization: `gatewaytoken ${GATEWAY_KEY}`, 'if-none-match': kept.etag ?? '' }))
      .toMatchObject({ lane: false, status: 304, etag: kept.etag, text: '' });
    // bad credentials and bad queries: the generic path's answers
    expect(await fetchCounted(app, cid, path, { authorization: `TargetToken ${token}x` })).toMatchObject({ lane: false, status: 401 });
    expect(await fetchCounted(app, cid, `/deploymentBase/${actionId}?c=x`)).toMatchObject({ lane: false, status: 400 });
    expect(await fetchCounted(app, cid, `/deploymentBase/${actionId}?c=99999999999`)).toMatchObject({ lane: false, status: 400 });
    // another device's action is answered as a missing one, by whichever path
    await app.device('dep-1-other').get();
    expect(await fetchCounted(app, 'dep-1-other', path)).toMatchObject({ lane: false, status: 404 });
    // the first fetch recorded the retrieval; none of the kept ones did again
    expect(await retrievedCount(app, cid, actionId)).toBe(1);
  });

  it('never answers from a reply an input has moved past', async () => {
    const f = await fetchedOnce(kind, 'dep-2');
    const { app, seeded } = f;
    const { store, tenant } = app;
    const chunk = async (): Promise<Record<string, unknown>> => (await nextEqualsGeneric(f)).deployment.chunks[0]!;
    expect((await chunk())['metadata']).toBeUndefined();
    type Meta = Record<string, { value: string; targetVisible: boolean }>;
    // the module's metadata: made visible to targets
    await rewrite<{ metadata: Meta }>(store, tenant, SM, seeded.module.id, (m) => ({
      ...m, metadata: { ...m.metadata, hidden: { value: 'yes', targetVisible: true } },
    }));
    expect((await chunk())['metadata']).toEqual([{ key: 'hidden', value: 'yes' }]);
    // the module type's key (the chunk's part)
    await rewrite<{ key: string }>(store, tenant, SM_TYPE, seeded.smType.id, (t) => ({ ...t, key: 'runtime' }));
    expect((await chunk())['part']).toBe('jvm');
    // an artifact added to the module, one changed, one removed
    const id = await store.nextIds(tenant, ARTIFACT, 1);
    const added: ArtifactRecord = { ...seeded.artifacts[0]!.record, id, filename: 'second.bin' };
    expect((await store.commit(tenant, { writes: [{ kind: ARTIFACT, id, expect: 0, after: added }] })).ok).toBe(true);
    const names = async (): Promise<string[]> => ((await chunk())['artifacts'] as { filename: string }[]).map((a) => a.filename);
    expect(await names()).toEqual(['image.bin', 'second.bin']);
    await rewrite<ArtifactRecord>(store, tenant, ARTIFACT, id, (a) => ({ ...a, filename: 'renamed.bin' }));
    expect(await names()).toEqual(['image.bin', 'renamed.bin']);
    await rewrite<ArtifactRecord>(store, tenant, ARTIFACT, seeded.artifacts[0]!.record.id, () => null);
    expect(await names()).toEqual(['renamed.bin']);
    // the set's modules: a second one
    const other = await seedDistributionSet(app);
    await rewrite<{ modules: number[] }>(store, tenant, DS, seeded.ds.id, (d) => ({ ...d, modules: [...d.modules, other.module.id] }));
    expect((await nextEqualsGeneric(f)).deployment.chunks.map((c) => c['name'])).toEqual([seeded.module.name, other.module.name]);
    // the base URL: links follow the Host the device used, and back
    const host = `localhost:${new URL(app.url).port}`;
    // fetch cannot set Host: undici's request can
    const viaHost = async (p: string): Promise<{ status: number; etag: unknown; text: string }> => {
      const res = await request(app.url + app.device(f.cid).base + p, { headers: { ...GATEWAY, host } });
      return { status: res.statusCode, etag: res.headers['etag'], text: await res.body.text() };
    };
    const kept = await viaHost(f.path);
    expect(kept).toEqual(await viaHost(`/deploymentBase/${f.actionId}?actionHistory=1`));
    expect(kept.text).toContain(`"href":"http://${host}/`);
    expect(JSON.stringify(await nextEqualsGeneric(f))).toContain(`"href":"${app.url}/`);
    // the action itself: cancelled, it is no longer shown
    expect((await app.mgmt.delete(`/rest/v1/targets/${f.cid}/actions/${f.actionId}`)).status).toBe(204);
    expect(await fetchCounted(app, f.cid, f.path)).toMatchObject({ status: 404, lane: false });
  });

  it('records retrieved again after the device reported in between, as before', async () => {
    const f = await fetchedOnce(kind, 'dep-3');
    const { app, cid, actionId, path } = f;
    expect(await retrievedCount(app, cid, actionId)).toBe(1);
    expect((await app.device(cid).post(`/deploymentBase/${actionId}/feedback`, feedback('proceeding'))).status).toBe(200);
    expect(await fetchCounted(app, cid, path)).toMatchObject({ status: 200, lane: false });
    expect(await retrievedCount(app, cid, actionId)).toBe(2);
    await vi.waitFor(async () => expect((await fetchCounted(app, cid, path)).lane).toBe(true), { timeout: 10_000, interval: 20 });
    expect(await retrievedCount(app, cid, actionId)).toBe(2);
    // a closed action is served (hawkBit does) and kept; nothing is recorded for it
    expect((await app.device(cid).post(`/deploymentBase/${actionId}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    await vi.waitFor(async () => expect((await fetchCounted(app, cid, path)).lane).toBe(true), { timeout: 10_000, interval: 20 });
    await nextEqualsGeneric(f);
    expect(await retrievedCount(app, cid, actionId)).toBe(2);
  });

  it('leaves maintenance windows and time-forced actions before their force time to the generic path', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const cid = 'dep-4';
    await app.device(cid).get();
    const { ds } = await seedDistributionSet(app);
    const at = new Date(Date.now() + 30 * 60_000);
    const windowed = await assign(app, cid, ds.id, {
      maintenanceWindow: { schedule: `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`, duration: '00:10:00', timezone: '+00:00' },
    });
    for (let i = 0; i < 4; i++) {
      const seen = await fetchCounted(app, cid, `/deploymentBase/${windowed}`);
      expect(seen).toMatchObject({ status: 200, lane: false });
      expect(JSON.parse(seen.text).deployment).toMatchObject({ update: 'skip', maintenanceWindow: 'unavailable' });
    }
    const { ds: ds2 } = await seedDistributionSet(app);
    const cid2 = 'dep-4b';
    await app.device(cid2).get();
    const forceTime = Date.now() + 3000;
    const forced = await assign(app, cid2, ds2.id, { type: 'timeforced', forcetime: forceTime });
    // before the force time the body depends on the time: never kept, however often the device fetches
    let before = 0;
    while (before < 5) {
      const seen = await fetchCounted(app, cid2, `/deploymentBase/${forced}`);
      if (Date.now() >= forceTime) break; // answered at the force time or after (a loaded machine): proves nothing
      expect(seen.lane).toBe(false);
      expect(JSON.parse(seen.text).deployment.download).toBe('attempt');
      before++;
    }
    expect(before).toBeGreaterThan(0);
    const after = await vi.waitFor(async () => {
      const seen = await fetchCounted(app, cid2, `/deploymentBase/${forced}`);
      expect(seen.lane).toBe(true);
      return seen;
    }, { timeout: 15_000, interval: 50 });
    expect(JSON.parse(after.text).deployment.download).toBe('forced');
  });

  it.skipIf(kind === 'memory')("follows another server's writes on the same Redis (tracking invalidation, not this process's memory)", async () => {
    const f = await fetchedOnce(kind, 'dep-5');
    const { app, seeded } = f;
    const admin = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };
    const tenants = [{ name: app.tenant, users: [admin], config: app.tenantConfig }];
    const other = await startTestServer({ tenants }, storeOptions(kind));
    const tag = randomBytes(4).toString('hex');
    await rewrite<{ metadata: Record<string, unknown> }>(other.server.store, app.tenant, SM, seeded.module.id, (m) => ({
      ...m, metadata: { seen: { value: tag, targetVisible: true } },
    }));
    // this server learns of the write when Redis's invalidation arrives: from then on, never the old reply
    await vi.waitFor(async () => expect((await fetchCounted(app, f.cid, f.path)).text).toContain(tag), { timeout: 10_000, interval: 20 });
    await nextEqualsGeneric(f);
    // and the action changed on the other server (cancelled): not shown here either
    expect((await http(other.url).delete(`/rest/v1/targets/${f.cid}/actions/${f.actionId}`, { auth: ADMIN })).status).toBe(204);
    await vi.waitFor(async () => expect((await fetchCounted(app, f.cid, f.path)).status).toBe(404), { timeout: 10_000, interval: 20 });
  });
});
