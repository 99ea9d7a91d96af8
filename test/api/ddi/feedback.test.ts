import { describe, expect, it } from 'vitest';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, feedback, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const BAD_BODY = 'hawkbit.server.error.rest.body.notReadable';
const QUOTA = 'hawkbit.server.error.quota.tooManyEntries';

async function statusOf(app: DdiApp, id: number): Promise<ActionRecord['status']> {
  return (await app.store.get<ActionRecord>(app.tenant, ACTION, id))!.value.status;
}

/** A registered device with one running action. */
async function withAction(app: DdiApp, cid: string, type?: 'downloadonly'): Promise<number> {
  await app.device(cid).get();
  const { ds } = await seedDistributionSet(app);
  return assign(app, cid, ds.id, type === undefined ? {} : { type });
}

describe.each(STORES)('DDI feedback, %s store', (kind) => {
  it('refuses malformed bodies with 400 naming the field', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'fb-bad');
    const dev = app.device('fb-bad');
    const cases: [unknown, string][] = [
      [{ status: { execution: 'done', result: { finished: 'none' } } }, 'body.status.execution: must be one of "closed"'],
      [{ status: { execution: 'closed', result: { finished: 'maybe' } } }, 'body.status.result.finished: must be one of'],
      [{ status: { execution: 'closed' } }, 'body.status.result: required'],
      [{ status: { result: { finished: 'none' } } }, 'body.status.execution: must be one of'], // ..., got nothing
      [{}, 'body.status: required'],
      [{ status: { execution: 'proceeding', result: { finished: 'none' }, code: 'abc' } }, 'body.status.code'],
      [{ timestamp: 'yesterday', status: { execution: 'proceeding', result: { finished: 'none' } } }, 'body.timestamp'],
      [{ status: { execution: 'proceeding', result: { finished: 'none' }, details: [{ text: 'x' }] } }, 'body.status.details'],
    ];
    for (const [json, message] of cases) {
      const res = await dev.post(`/deploymentBase/${id}/feedback`, { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.json().errorCode).toBe(BAD_BODY);
      expect(res.json().message).toContain(message);
    }
    const malformed = await dev.post(`/deploymentBase/${id}/feedback`, { body: '{"status":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect((await dev.post(`/deploymentBase/${id}/feedback`, { body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await dev.post('/deploymentBase/abc/feedback', feedback('proceeding'))).status).toBe(400);
    expect(await statusOf(app, id)).toBe('running');
  });

  it('reads numbers and message lists as leniently as hawkBit (Jackson) does', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'fb-lenient');
    const res = await app.device('fb-lenient').post(`/deploymentBase/${id}/feedback`, {
      json: { timestamp: 1700000000000.7, status: { execution: 'proceeding', result: { finished: 'none' }, code: '7', details: 'one message' } },
    });
    expect(res.status).toBe(200);
    const history = await app.mgmt.get(`/rest/v1/targets/fb-lenient/actions/${id}/status`);
    const entry = history.json().content[0];
    expect(entry).toMatchObject({ code: 7, timestamp: 1700000000000, messages: ['one message', 'Device reported status code: 7'] });
  });

  it('accepts progress and the fields old clients send, and ignores them', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'fb-old');
    const res = await app.device('fb-old').post(`/deploymentBase/${id}/feedback`, {
      json: { id: String(id), time: '20240101T120000', status: { execution: 'proceeding', result: { finished: 'none', progress: { cnt: 2, of: 5 } } } },
    });
    expect(res.status).toBe(200);
  });

  it('answers 404 for another target\'s action or an unknown one, and 410 for a closed one', async () => {
    const app = await startDdiApp(kind);
    const mine = await withAction(app, 'fb-mine');
    await withAction(app, 'fb-theirs');
    const theirs = app.device('fb-theirs');
    const other = await theirs.post(`/deploymentBase/${mine}/feedback`, feedback('closed', 'success'));
    expect(other.status).toBe(404);
    expect(other.json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
    expect((await theirs.get(`/deploymentBase/${mine}`)).status).toBe(404);
    expect((await theirs.get(`/cancelAction/${mine}`)).status).toBe(404);
    expect((await theirs.post(`/cancelAction/${mine}/feedback`, feedback('closed', 'success'))).status).toBe(404);
    expect((await theirs.get(`/installedBase/${mine}`)).status).toBe(404);
    expect((await theirs.post(`/confirmationBase/${mine}/feedback`, { json: { confirmation: 'confirmed' } })).status).toBe(404);
    expect((await theirs.post('/deploymentBase/999999/feedback', feedback('closed', 'success'))).status).toBe(404);
    expect(await statusOf(app, mine)).toBe('running');

    const dev = app.device('fb-mine');
    expect((await dev.get(`/installedBase/${mine}`)).status).toBe(404); // still active
    // without the confirmation flow a running action cannot be denied (nothing to revoke)
    expect((await dev.post(`/confirmationBase/${mine}/feedback`, { json: { confirmation: 'denied' } })).status).toBe(404);
    expect((await dev.post(`/deploymentBase/${mine}/feedback`, feedback('closed', 'success', { details: ['done'] }))).status).toBe(200);
    const closed = await dev.post(`/deploymentBase/${mine}/feedback`, feedback('closed', 'failure'));
    expect(closed.status).toBe(410);
    expect(closed.json().errorCode).toBe('hawkbit.server.error.action.closed');
    expect((await dev.post(`/confirmationBase/${mine}/feedback`, { json: { confirmation: 'confirmed' } })).status).toBe(410);
    expect(await statusOf(app, mine)).toBe('finished');
  });

  it('refuses more messages than maxMessagesPerActionStatus and more entries than maxStatusEntriesPerAction with 403', async () => {
    const app = await startDdiApp(kind, { quotas: { maxMessagesPerActionStatus: 3, maxStatusEntriesPerAction: 5 } });
    const id = await withAction(app, 'fb-quota');
    const dev = app.device('fb-quota');
    const tooMany = await dev.post(`/deploymentBase/${id}/feedback`, feedback('proceeding', 'none', { details: ['a', 'b', 'c', 'd'] }));
    expect(tooMany.status).toBe(403);
    expect(tooMany.json().errorCode).toBe(QUOTA);
    expect((await dev.post(`/deploymentBase/${id}/feedback`, feedback('proceeding', 'none', { details: ['a', 'b', 'c'], code: 3 }))).status).toBe(403);
    expect((await dev.post(`/deploymentBase/${id}/feedback`, feedback('proceeding', 'none', { details: ['a', 'b', 'c'] }))).status).toBe(200);
    // entries: the assignment's, then intermediate reports until the quota is reached
    let refused = 0;
    for (let i = 0; i < 6; i++) if ((await dev.post(`/deploymentBase/${id}/feedback`, feedback('proceeding'))).status === 403) refused++;
    expect(refused).toBeGreaterThan(0);
    // a final report is never refused
    expect((await dev.post(`/deploymentBase/${id}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    expect(await statusOf(app, id)).toBe('finished');
  });

  it('closes a download-only action with "downloaded": the target is in sync, the installed DS unchanged', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'fb-dlo', 'downloadonly');
    const dev = app.device('fb-dlo');
    expect((await dev.get(`/deploymentBase/${id}`)).json().deployment).toMatchObject({ download: 'forced', update: 'skip' });
    expect((await dev.post(`/deploymentBase/${id}/feedback`, feedback('downloaded'))).status).toBe(200);
    expect(await statusOf(app, id)).toBe('downloaded');
    expect(await targetOf(app, 'fb-dlo')).toMatchObject({ updateStatus: 'in_sync', installedDs: null });
    expect((await dev.get(`/installedBase/${id}`)).status).toBe(200);
  });

  it('uses the device timestamp as installation time', async () => {
    const app = await startDdiApp(kind);
    const id = await withAction(app, 'fb-ts');
    const at = Date.now() - 60_000;
    expect((await app.device('fb-ts').post(`/deploymentBase/${id}/feedback`, { json: { timestamp: at, status: { execution: 'closed', result: { finished: 'success' } } } })).status).toBe(200);
    expect((await targetOf(app, 'fb-ts')).installedAt).toBe(at);
  });

  it('answers concurrent reports of many devices each on its own: a bad body and a closed action among good reports', async () => {
    const app = await startDdiApp(kind);
    const cids = ['fb-many-0', 'fb-many-1', 'fb-many-2', 'fb-many-3', 'fb-many-4', 'fb-many-5'];
    const ids: number[] = [];
    for (const cid of cids) ids.push(await withAction(app, cid));
    expect((await app.device('fb-many-5').post(`/deploymentBase/${ids[5]}/feedback`, feedback('closed', 'success'))).status).toBe(200);
    // all in flight together, so the good ones share a group commit with the refused ones around them
    const answers = await Promise.all(cids.map((cid, i) => app.device(cid).post(`/deploymentBase/${ids[i]}/feedback`,
      i === 4 ? { json: { status: { execution: 'done', result: { finished: 'none' } } } } : feedback(i === 3 ? 'closed' : 'proceeding', i === 3 ? 'success' : 'none', { details: [`report ${i}`] }))));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 400, 410]);
    for (const i of [0, 1, 2]) {
      const action = (await app.store.get<ActionRecord>(app.tenant, ACTION, ids[i]!))!.value;
      expect(action).toMatchObject({ status: 'running', entries: 2 });
    }
    expect(await statusOf(app, ids[3]!)).toBe('finished');
    expect((await targetOf(app, 'fb-many-3')).updateStatus).toBe('in_sync');
    expect(await statusOf(app, ids[4]!)).toBe('running');
  });
});
