import { describe, expect, it } from 'vitest';
import { ACTION_STATUS, type ActionStatusRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, feedback, startDdiApp, type DdiApp } from './fixture.js';

/** The status history of an action, oldest first. */
async function entriesOf(app: DdiApp, id: number): Promise<ActionStatusRecord[]> {
  const page = await app.store.members(app.tenant, ACTION_STATUS, 'action', String(id), { offset: 0, limit: 1000 });
  const entries = await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, page.ids);
  return entries.map((e) => e!.value).sort((a, b) => a.id - b.id);
}

/** The texts hawkBit's DdiRootController writes (1.1.0 and 0.9.0 alike), so histories compare across servers. */
describe.each(STORES)('DDI status messages as hawkBit writes them, %s store', (kind) => {
  it('a download names the request path; fetching a cancellation and rejecting it have their own lines', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-messages');
    await dev.get();
    const first = await seedDistributionSet(app);
    const second = await seedDistributionSet(app);
    const a1 = await assign(app, 'dev-messages', first.ds.id);
    expect((await dev.get(`/deploymentBase/${a1}`)).status).toBe(200);
    const file = `/softwaremodules/${first.module.id}/artifacts/image.bin`;
    expect((await dev.get(`${file}?attempt=1`)).status).toBe(200);
    const download = (await entriesOf(app, a1)).filter((e) => e.type === 'download');
    expect(download.map((e) => e.messages)).toEqual([[`Update Server: Target downloads ${dev.base}${file}`]]);

    await assign(app, 'dev-messages', second.ds.id); // a1 is canceled for the new one
    expect((await dev.get(`/cancelAction/${a1}`)).status).toBe(200);
    const retrieved = (await entriesOf(app, a1)).filter((e) => e.type === 'retrieved').map((e) => e.messages);
    expect(retrieved).toEqual([
      ['Update Server: Target retrieved update action and should start now the download.'],
      ['Update Server: Target retrieved cancel action and should start now the cancellation.'],
    ]);

    const rejected = await dev.post(`/cancelAction/${a1}/feedback`, feedback('rejected', 'none', { details: ['busy flashing'], code: 7 }));
    expect(rejected.status).toBe(200);
    const entry = (await entriesOf(app, a1)).find((e) => e.type === 'cancel_rejected');
    expect(entry?.messages).toEqual(['Update Server: Target rejected the cancellation request.', 'busy flashing', 'Device reported status code: 7']);
    // the Management view shows the same lines
    const history = await app.mgmt.get(`/rest/v1/targets/dev-messages/actions/${a1}/status?sort=id:DESC&limit=1`);
    expect(history.json().content[0].messages).toEqual(entry?.messages);
  });

  it('a whole download repeated back to back adds one DOWNLOAD entry; ranges and HEAD add none; another file or a report in between, another', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-repeats');
    await dev.get();
    const seeded = await seedDistributionSet(app);
    const a = await assign(app, 'dev-repeats', seeded.ds.id);
    const file = `/softwaremodules/${seeded.module.id}/artifacts/image.bin`;
    const downloads = async (): Promise<string[]> =>
      (await entriesOf(app, a)).filter((e) => e.type === 'download').map((e) => e.messages[0]!.replace(/^.*Target downloads /, ''));
    for (let i = 0; i < 3; i++) expect((await dev.get(file)).status).toBe(200);
    expect((await dev.get(file, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
    expect((await dev.head(file)).status).toBe(200);
    expect(await downloads()).toEqual([dev.base + file]);
    expect((await dev.get(`${file}.MD5SUM`)).status).toBe(200);
    expect((await dev.get(`${file}.MD5SUM`)).status).toBe(200);
    expect((await dev.get(file)).status).toBe(200);
    expect(await downloads()).toEqual([dev.base + file, `${dev.base}${file}.MD5SUM`, dev.base + file]);
    expect((await dev.post(`/deploymentBase/${a}/feedback`, feedback('proceeding'))).status).toBe(200);
    expect((await dev.get(file)).status).toBe(200);
    expect((await dev.get(file)).status).toBe(200);
    expect(await downloads()).toEqual([dev.base + file, `${dev.base}${file}.MD5SUM`, dev.base + file, dev.base + file]);
  });

  it('a cancellation the device confirms, or fails to complete, or answers with "canceled", has hawkBit\'s server line first', async () => {
    const app = await startDdiApp(kind);
    const dev = app.device('dev-cancels');
    await dev.get();
    const sets = await Promise.all([1, 2, 3, 4].map(() => seedDistributionSet(app)));
    const ids: number[] = [];
    for (const s of sets) ids.push(await assign(app, 'dev-cancels', s.ds.id));
    const [a1, a2, a3] = ids as [number, number, number];
    const last = async (id: number) => (await entriesOf(app, id)).at(-1);
    expect((await dev.post(`/cancelAction/${a1}/feedback`, feedback('canceled', 'none'))).status).toBe(200);
    expect(await last(a1)).toMatchObject({ type: 'warning', messages: ['Update Server: Target reported cancel for a cancel which is not supported by the server.'] });
    expect((await dev.post(`/cancelAction/${a1}/feedback`, feedback('closed', 'success', { details: ['stopped'] }))).status).toBe(200);
    expect(await last(a1)).toMatchObject({ type: 'canceled', messages: ['Update Server: Cancellation confirmed.', 'stopped'] });
    expect((await dev.post(`/cancelAction/${a2}/feedback`, feedback('closed', 'failure', { code: 3 }))).status).toBe(200);
    expect(await last(a2)).toMatchObject({
      type: 'error', messages: ['Update Server: Target was not able to complete cancellation.', 'Device reported status code: 3'],
    });
    expect((await dev.post(`/cancelAction/${a3}/feedback`, feedback('proceeding', 'none', { details: ['working on it'] }))).status).toBe(200);
    expect(await last(a3)).toMatchObject({ type: 'running', messages: ['working on it'] });
  });
});
