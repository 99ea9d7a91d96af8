/**
 * Feedback as real device clients send it: progress counters that do not add up, details that are
 * numbers or booleans, and a final report repeated because its answer got lost.
 * @see issue 7, items 1, 2, 8
 */
import { describe, expect, it } from 'vitest';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, feedback, startDdiApp, type DdiApp } from './fixture.js';

async function withAction(app: DdiApp, cid: string, type?: 'downloadonly'): Promise<number> {
  await app.device(cid).get();
  const { ds } = await seedDistributionSet(app);
  return assign(app, cid, ds.id, type === undefined ? {} : { type });
}

async function history(app: DdiApp, cid: string, id: number): Promise<{ type: string; messages: string[] }[]> {
  const res = await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}/status?limit=100`);
  expect(res.status).toBe(200);
  return res.json().content;
}

async function action(app: DdiApp, id: number): Promise<ActionRecord> {
  return (await app.store.get<ActionRecord>(app.tenant, ACTION, id))!.value;
}

describe.each(STORES)('DDI feedback from real clients, %s store', (kind) => {
  it('accepts and stores progress whatever its counters say (cnt over of, of 0, cnt negative)', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'prog-dev');
    const dev = app.device('prog-dev');
    const cases = [{ cnt: 6, of: 5 }, { cnt: 1, of: 0 }, { cnt: -1, of: 3 }, { cnt: 0 }, { of: 2 }];
    for (const progress of cases) {
      const res = await dev.post(`/deploymentBase/${id}/feedback`, {
        json: { status: { execution: 'proceeding', result: { finished: 'none', progress }, details: [`at ${JSON.stringify(progress)}`] } },
      });
      expect(res.status, JSON.stringify(progress)).toBe(200);
    }
    const stored = (await history(app, 'prog-dev', id)).flatMap((e) => e.messages);
    for (const progress of cases) expect(stored).toContain(`at ${JSON.stringify(progress)}`);
    expect((await action(app, id)).status).toBe('running');
  });

  it('takes numbers and booleans in details as their text, as Jackson does', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'det-dev');
    const dev = app.device('det-dev');
    const res = await dev.post(`/deploymentBase/${id}/feedback`, {
      json: { status: { execution: 'proceeding', result: { finished: 'none' }, details: [123, true, 'text', 1.5, null, false] } },
    });
    expect(res.status).toBe(200);
    const single = await dev.post(`/deploymentBase/${id}/feedback`, { json: { status: { execution: 'proceeding', result: { finished: 'none' }, details: 42 } } });
    expect(single.status).toBe(200);
    const confirm = await dev.post(`/deploymentBase/${id}/feedback`, feedback('closed', 'success', { details: [7] }));
    expect(confirm.status).toBe(200);
    const messages = (await history(app, 'det-dev', id)).map((e) => e.messages);
    expect(messages).toContainEqual(['123', 'true', 'text', '1.5', 'false']);
    expect(messages).toContainEqual(['42']);
    expect(messages).toContainEqual(['7']);
    // objects are no text: still a 400 naming the field
    const bad = await dev.post(`/deploymentBase/${id}/feedback`, { json: { status: { execution: 'proceeding', result: { finished: 'none' }, details: [{}] } } });
    expect(bad.status).toBe(400);
    expect(bad.json().message).toContain('body.status.details');
  });

  it('answers a repeated final report with 200 and records nothing new; another final status is still 410', async () => {
    const app = await startDdiApp(kind);
    const ok = await withAction(app, 'retry-ok');
    const dev = app.device('retry-ok');
    expect((await dev.post(`/deploymentBase/${ok}/feedback`, feedback('closed', 'success', { details: ['installed'] }))).status).toBe(200);
    const before = await history(app, 'retry-ok', ok);
    const entries = (await action(app, ok)).entries;
    for (let i = 0; i < 2; i++) {
      const again = await dev.post(`/deploymentBase/${ok}/feedback`, feedback('closed', 'success', { details: ['installed'] }));
      expect(again.status).toBe(200);
    }
    expect(await history(app, 'retry-ok', ok)).toEqual(before);
    expect((await action(app, ok)).entries).toBe(entries);
    // "none" closes as success too, so it repeats the same final status
    expect((await dev.post(`/deploymentBase/${ok}/feedback`, feedback('closed', 'none'))).status).toBe(200);
    const contradicting = await dev.post(`/deploymentBase/${ok}/feedback`, feedback('closed', 'failure'));
    expect(contradicting.status).toBe(410);
    expect(contradicting.json().errorCode).toBe('hawkbit.server.error.action.closed');
    expect((await dev.post(`/deploymentBase/${ok}/feedback`, feedback('proceeding'))).status).toBe(410);

    const failed = await withAction(app, 'retry-err');
    const dev2 = app.device('retry-err');
    expect((await dev2.post(`/deploymentBase/${failed}/feedback`, feedback('closed', 'failure'))).status).toBe(200);
    expect((await dev2.post(`/deploymentBase/${failed}/feedback`, feedback('closed', 'failure'))).status).toBe(200);
    expect((await dev2.post(`/deploymentBase/${failed}/feedback`, feedback('closed', 'success'))).status).toBe(410);
    expect((await action(app, failed)).status).toBe('error');

    const download = await withAction(app, 'retry-dlo', 'downloadonly');
    const dev3 = app.device('retry-dlo');
    expect((await dev3.post(`/deploymentBase/${download}/feedback`, feedback('downloaded'))).status).toBe(200);
    const entriesDlo = (await action(app, download)).entries;
    expect((await dev3.post(`/deploymentBase/${download}/feedback`, feedback('downloaded'))).status).toBe(200);
    expect((await action(app, download)).entries).toBe(entriesDlo);
  });

  it('answers 410 to a final report on an action cancelled meanwhile', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'retry-cancel');
    const dev = app.device('retry-cancel');
    expect((await app.mgmt.delete(`/rest/v1/targets/retry-cancel/actions/${id}`)).status).toBe(204);
    expect((await dev.post(`/cancelAction/${id}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    expect((await action(app, id)).status).toBe('canceled');
    expect((await dev.post(`/deploymentBase/${id}/feedback`, feedback('closed', 'success'))).status).toBe(410);
  });
});
