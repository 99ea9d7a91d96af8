import { describe, expect, it, vi } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../../../src/domain/action.js';
import { TARGET } from '../../../src/domain/target.js';
import { BURST } from '../../../src/ddi/index.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { assign, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const seconds = (hhmmss: string): number => {
  const [h, m, s] = hhmmss.split(':').map(Number) as [number, number, number];
  return h * 3600 + m * 60 + s;
};

async function patchAction(app: DdiApp, id: number, change: Partial<ActionRecord>): Promise<void> {
  const cur = (await app.store.get<ActionRecord>(app.tenant, ACTION, id))!;
  const r = await app.store.commit(app.tenant, {
    writes: [{ kind: ACTION, id, expect: cur.version, before: cur.value, after: { ...cur.value, ...change } }],
  });
  if (!r.ok) throw new Error('patch failed');
}

/** A daily Quartz-style schedule (with seconds) starting `offsetMs` from now, in UTC. */
function dailyAt(offsetMs: number): string {
  const at = new Date(Date.now() + offsetMs);
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}

describe.each(STORES)('DDI poll, %s store', (kind) => {
  it('answers the body without links when nothing applies, and never writes the target', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { pollingTime: '00:07:00' } });
    await seedTarget(app, 'quiet', { requestAttributes: false, updateStatus: 'registered' });
    const id = (await targetOf(app, 'quiet')).id;
    const before = (await app.store.get(app.tenant, TARGET, id))!.version;
    for (let i = 0; i < 3; i++) {
      const res = await app.device('quiet').get();
      expect(res.status).toBe(200);
      expect(res.text).toBe('{"config":{"polling":{"sleep":"00:07:00"}}}');
      expect(res.headers.get('content-type')).toBe('application/hal+json'); // hawkBit's first type without Accept
    }
    expect((await app.store.get(app.tenant, TARGET, id))!.version).toBe(before);
    const hal = await app.device('quiet').get('', { headers: { accept: 'application/hal+json' } });
    expect(hal.headers.get('content-type')).toBe('application/hal+json');
    const json = await app.device('quiet').get('', { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect((await app.device('quiet').get('', { headers: { accept: 'text/html' } })).status).toBe(406);
  });

  it('answers 304 to a matching If-None-Match until something changes', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' } });
    const dev = app.device('etag-1');
    const first = await dev.get();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"0[0-9a-f]{16}"$/);
    const same = await dev.get('', { headers: { 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe(etag);
    expect((await dev.get('', { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
    expect((await dev.get('', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);

    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, 'etag-1', ds.id);
    const changed = await dev.get('', { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    // the other JSON endpoints carry ETags too
    const dep = await dev.get(`/deploymentBase/${actionId}`);
    const again = await dev.get(`/deploymentBase/${actionId}`, { headers: { 'if-none-match': dep.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it(`answers 429 with Retry-After once a device used up its burst of ${BURST} polls below minPollingTime`, async () => {
    const app = await startDdiApp(kind, { exemptCidrs: [] }); // minPollingTime 00:00:30; 127.0.0.1 paced too
    const dev = app.device('eager');
    for (let i = 0; i < BURST; i++) expect((await dev.get()).status).toBe(200);
    const refused = await dev.get();
    expect(refused.status).toBe(429);
    expect(refused.json().errorCode).toBe('hawkbit.server.error.tooManyRequests');
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(30);
    // other devices, and the device's other endpoints, are not affected
    expect((await app.device('calm').get()).status).toBe(200);
    expect((await dev.get('/confirmationBase')).status).toBe(200);

    const unlimited = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00' }, exemptCidrs: [] });
    for (let i = 0; i < BURST * 2; i++) expect((await unlimited.device('eager').get()).status).toBe(200);
  });

  it('serves the highest-priority action: highest weight, then the oldest', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { 'multi.assignments.enabled': true } });
    const dev = app.device('multi');
    await dev.get();
    const sets = await Promise.all([1, 2, 3].map(() => seedDistributionSet(app)));
    await assign(app, 'multi', sets[0]!.ds.id, { weight: 100 });
    const heavy = await assign(app, 'multi', sets[1]!.ds.id, { weight: 500 });
    await assign(app, 'multi', sets[2]!.ds.id, { weight: 500 });
    expect((await dev.get()).json()._links.deploymentBase.href).toContain(`/deploymentBase/${heavy}?c=`);
  });

  it('shortens the sleep before a maintenance window opens and skips the update until then', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { pollingTime: '01:00:00', minPollingTime: '00:00:00' } });
    const dev = app.device('mw');
    await dev.get();
    const { ds } = await seedDistributionSet(app);
    const opensIn = 30 * 60_000; // 30 minutes
    const before = Date.now();
    const actionId = await assign(app, 'mw', ds.id, { maintenanceWindow: { schedule: dailyAt(opensIn), duration: '00:10:00', timezone: '+00:00' } });
    const sleep = seconds((await dev.get()).json().config.polling.sleep);
    // (start - now) / maintenanceWindowPollCount (3), within [minPollingTime, pollingTime]
    expect(sleep).toBeGreaterThanOrEqual(Math.floor((opensIn - (Date.now() - before)) / 3000) - 2);
    expect(sleep).toBeLessThanOrEqual(Math.ceil(opensIn / 3000) + 1);
    expect((await dev.get(`/deploymentBase/${actionId}`)).json().deployment).toMatchObject({ download: 'forced', update: 'skip', maintenanceWindow: 'unavailable' });

    // inside the window: normal sleep, update as download
    await patchAction(app, actionId, { maintenanceWindow: { schedule: dailyAt(-60_000), duration: '01:00:00', timezone: '+00:00' } });
    expect((await dev.get()).json().config.polling.sleep).toBe('01:00:00');
    expect((await dev.get(`/deploymentBase/${actionId}`)).json().deployment).toMatchObject({ update: 'forced', maintenanceWindow: 'available' });
  });

  it('cancels an action whose maintenance schedule has no window left and offers the cancellation', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('lapsed');
    await dev.get();
    const { ds } = await seedDistributionSet(app);
    const actionId = await assign(app, 'lapsed', ds.id, { maintenanceWindow: { schedule: dailyAt(3_600_000), duration: '00:10:00', timezone: '+00:00' } });
    // a schedule that yields no window any more (cron-parser cannot express a past year, so: one that never matches)
    await patchAction(app, actionId, { maintenanceWindow: { schedule: '0 0 0 30 2 *', duration: '00:10:00', timezone: '+00:00' } });
    const poll = (await dev.get()).json();
    expect(poll._links.cancelAction.href).toContain(`/cancelAction/${actionId}`);
    const action = (await app.store.get<ActionRecord>(app.tenant, ACTION, actionId))!.value;
    expect(action.status).toBe('canceling');
    const page = await app.store.members(app.tenant, ACTION_STATUS, 'action', String(actionId), { offset: 0, limit: 100 });
    const entries = await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, page.ids);
    expect(entries.some((e) => e!.value.messages.some((m) => m.includes('maintenance window expired')))).toBe(true);
  });

  it('writes the poll time and address behind, the forwarded address from a trusted proxy', async () => {
    const app = await startDdiApp(kind, { pollFlushMs: 20, trustedProxies: ['127.0.0.1'] });
    const before = Date.now();
    await app.device('rec-1').get();
    await app.device('rec-2').get('', { headers: { 'x-forwarded-for': '10.1.2.3, 127.0.0.1' } });
    const ids = [(await targetOf(app, 'rec-1')).id, (await targetOf(app, 'rec-2')).id];
    const polls = await vi.waitFor(async () => {
      const written = await app.store.getPolls(app.tenant, ids);
      expect(written).not.toContain(undefined);
      return written;
    }, { timeout: 5000, interval: 20 });
    expect(polls[0]).toEqual({ at: expect.any(Number), address: 'http://127.0.0.1' });
    expect(polls[0]!.at).toBeGreaterThanOrEqual(before);
    expect(polls[1]?.address).toBe('http://10.1.2.3');
    expect((await targetOf(app, 'rec-2')).address).toBe('http://10.1.2.3');
  });
});
