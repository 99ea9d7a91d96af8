/**
 * The root poll's `installedBase` link follows the data: after the installed action is deleted it
 * names the newest remaining finished action of the installed set (hawkBit's
 * findInstalledActionByTarget), or disappears; it never names an action that answers 404.
 * @see issue 7, item 4
 */
import { describe, expect, it, vi } from 'vitest';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, feedback, startDdiApp, targetOf, type DdiApp } from './fixture.js';

async function install(app: DdiApp, cid: string, dsId: number): Promise<number> {
  const id = await assign(app, cid, dsId);
  expect((await app.device(cid).post(`/deploymentBase/${id}/feedback`, feedback('closed', 'success'))).status).toBe(200);
  return id;
}

/**
 * The link as the next polls see it. The target actor moves the link when the deletion's effect
 * reaches it, which may be after the Management call answered: the check is retried for up to 2 s.
 */
async function linkSoon(app: DdiApp, cid: string, check: (link: string | undefined) => void): Promise<void> {
  await vi.waitFor(async () => check(await installedLink(app, cid)), { timeout: 2000, interval: 20 });
}

async function installedLink(app: DdiApp, cid: string): Promise<string | undefined> {
  const poll = await app.device(cid).get();
  expect(poll.status).toBe(200);
  return poll.json()._links?.installedBase?.href;
}

describe.each(STORES)('installedBase after deleting actions, %s store', (kind) => {
  it('falls back to the newest remaining finished action of the installed set, then disappears', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00', 'action.delete.allowed.statuses': 'FINISHED,ERROR,CANCELED' } });
    const cid = 'ib-dev';
    await app.device(cid).get();
    const { ds } = await seedDistributionSet(app);
    const first = await install(app, cid, ds.id);
    const between = await install(app, cid, (await seedDistributionSet(app)).ds.id);
    const second = await install(app, cid, ds.id); // the first set again
    expect(between).toBeLessThan(second);
    expect(await installedLink(app, cid)).toMatch(new RegExp(`/installedBase/${second}$`));

    expect((await app.mgmt.delete(`/rest/v1/actions/${second}`)).status).toBe(204);
    await linkSoon(app, cid, (fallback) => expect(fallback).toMatch(new RegExp(`/installedBase/${first}$`)));
    expect((await app.device(cid).get(`/installedBase/${first}`)).status).toBe(200);
    expect((await targetOf(app, cid)).installedDs).toBe(ds.id);

    expect((await app.mgmt.delete(`/rest/v1/actions/${first}`)).status).toBe(204);
    await linkSoon(app, cid, (link) => expect(link).toBeUndefined());
    const target = await targetOf(app, cid);
    expect(target.installedAction).toBeNull();
    expect(target.installedDs).toBe(ds.id); // what the device runs did not change
  });

  it('keeps the link when another action is deleted, and never falls back to an action of another set', async () => {
    const app = await startDdiApp(kind, { tenantConfig: { minPollingTime: '00:00:00', 'action.delete.allowed.statuses': 'FINISHED,ERROR,CANCELED' } });
    const cid = 'ib-other';
    await app.device(cid).get();
    const old = await install(app, cid, (await seedDistributionSet(app)).ds.id);
    const current = await install(app, cid, (await seedDistributionSet(app)).ds.id);
    expect((await app.mgmt.delete(`/rest/v1/actions/${old}`)).status).toBe(204);
    await linkSoon(app, cid, (link) => expect(link).toMatch(new RegExp(`/installedBase/${current}$`)));
    expect((await app.mgmt.delete(`/rest/v1/actions/${current}`)).status).toBe(204);
    await linkSoon(app, cid, (link) => expect(link).toBeUndefined());
  });
});
