import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION_STATUS } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget, type SeededDs } from '../../helpers/seed.js';
import { startDeployApp, READER, UPDATER, type DeployApp } from './fixture.js';
import { assignOne, cid, expectError, storedAction } from './helpers.js';

const NOT_DELETABLE = 'hawkbit.server.error.action.notDeletable';
const NOT_READABLE = 'hawkbit.server.error.rest.body.notReadable';

/** DELETE /rest/v1/actions and DELETE /rest/v1/targets/{id}/actions (hawkBit 1.x, reference §3.1, §3.6). */
describe.each(STORES)('deleting actions in bulk, %s store', (kind) => {
  let app: DeployApp;
  let set: SeededDs;
  let other: SeededDs;
  beforeAll(async () => {
    app = await startDeployApp(kind);
    set = await seedDistributionSet(app);
    other = await seedDistributionSet(app);
  });

  /** A target with two finished actions (offline assignments) and a running one, oldest first. */
  const targetWithHistory = async (prefix: string) => {
    const t = await seedTarget(app, cid(prefix));
    const f1 = await assignOne(app, t.controllerId, { id: set.ds.id }, '?offline=true');
    const f2 = await assignOne(app, t.controllerId, { id: other.ds.id }, '?offline=true');
    const running = await assignOne(app, t.controllerId, { id: set.ds.id });
    return { t, f1, f2, running };
  };
  const gone = async (...ids: number[]) => {
    for (const id of ids) {
      expect(await storedAction(app, id), `action ${id}`).toBeUndefined();
      expect(await app.store.count(app.tenant, ACTION_STATUS, 'action', String(id))).toBe(0);
    }
  };
  const kept = async (...ids: number[]) => {
    for (const id of ids) expect(await storedAction(app, id), `action ${id}`).toBeDefined();
  };

  it('by ids: any action not in an allowed status refuses the whole request (405); unknown ids are ignored', async () => {
    const { f1, f2, running } = await targetWithHistory('ids');
    const refused = await app.mgmt.delete('/rest/v1/actions', { json: [f1, running] });
    expectError(refused, 405, NOT_DELETABLE);
    expect(refused.json().message).toBe('1 actions from ID list are not in allowed statuses for deletion: [FINISHED, ERROR, CANCELED]');
    await kept(f1, f2, running);
    expect((await app.mgmt.delete('/rest/v1/actions', { json: [f1, 99999999] })).status).toBe(204);
    await gone(f1);
    await kept(f2, running);
  });

  it('by q: every match must be deletable; FIQL errors and bad bodies are 400', async () => {
    const { t, f1, f2, running } = await targetWithHistory('fiql');
    const q = (text: string) => `/rest/v1/actions?q=${encodeURIComponent(text)}`;
    const refused = await app.mgmt.delete(q(`target.controllerid==${t.controllerId}`));
    expectError(refused, 405, NOT_DELETABLE);
    expect(refused.json().message).toBe('1 actions matching the rsql filter are not in allowed statuses for deletion: [FINISHED, ERROR, CANCELED]');
    await kept(f1, f2, running);
    expect((await app.mgmt.delete(q(`target.controllerid==${t.controllerId};active==false`))).status).toBe(204);
    await gone(f1, f2);
    await kept(running);
    expect((await app.mgmt.delete(q('target.controllerid==nobody-at-all'))).status).toBe(204);

    expectError(await app.mgmt.delete(q('colour==red')), 400, 'hawkbit.server.error.rest.param.rsqlInvalidField');
    expectError(await app.mgmt.delete(q('active==')), 400, 'hawkbit.server.error.rest.param.rsqlParamSyntax');
    const both = await app.mgmt.delete(q('active==false'), { json: [running] });
    expectError(both, 400, NOT_READABLE);
    expect(both.json().message).toContain('Only one of the parameters should be provided!');
    const neither = await app.mgmt.delete('/rest/v1/actions');
    expectError(neither, 400, NOT_READABLE);
    expect(neither.json().message).toContain('Either action id list or rsql filter should be provided.');
    expectError(await app.mgmt.delete('/rest/v1/actions', { json: [] }), 400, NOT_READABLE);
    expectError(await app.mgmt.delete('/rest/v1/actions', { json: ['abc'] }), 400, NOT_READABLE);
    expectError(await app.mgmt.delete('/rest/v1/actions', { json: { ids: [running] } }), 400, NOT_READABLE);
    expectError(await app.mgmt.delete('/rest/v1/actions', { body: '[1,', headers: { 'content-type': 'application/json' } }), 400, NOT_READABLE);
    await kept(running);
  });

  it('the allowed statuses are the tenant\'s action.delete.allowed.statuses', async () => {
    const { f1, running } = await targetWithHistory('config');
    await app.setConfig({ 'action.delete.allowed.statuses': 'RUNNING' });
    try {
      expectError(await app.mgmt.delete('/rest/v1/actions', { json: [f1] }), 405, NOT_DELETABLE);
      expect((await app.mgmt.delete('/rest/v1/actions', { json: [running] })).status).toBe(204);
      await gone(running);
      await kept(f1);
    } finally {
      await app.setConfig({ 'action.delete.allowed.statuses': 'CANCELED,ERROR,FINISHED' });
    }
  });

  it("a target's actions but the newest keepLast: actions not in an allowed status are skipped, not refused", async () => {
    const { t, f1, f2, running } = await targetWithHistory('keep');
    const path = `/rest/v1/targets/${t.controllerId}/actions`;
    expect((await app.mgmt.delete(`${path}?keepLast=2`)).status).toBe(204);
    await gone(f1);
    await kept(f2, running);
    expect((await app.mgmt.delete(`${path}?keepLast=0`)).status).toBe(204);
    await gone(f2);
    await kept(running);
    expect((await app.mgmt.get(path)).json().content.map((a: { id: number }) => a.id)).toEqual([running]);
    expect((await app.mgmt.delete(`${path}?keepLast=10`)).status).toBe(204);
    await kept(running);
  });

  it("a target's actions by ids: only its own; one not deletable refuses (405); bad parameters are 400, an unknown target 404", async () => {
    const { t, f1, f2, running } = await targetWithHistory('tids');
    const stranger = await targetWithHistory('stranger');
    const path = `/rest/v1/targets/${t.controllerId}/actions`;
    expectError(await app.mgmt.delete(path, { json: [f1, running] }), 405, NOT_DELETABLE);
    await kept(f1, running);
    expect((await app.mgmt.delete(path, { json: [f1, stranger.f1, 99999999] })).status).toBe(204);
    await gone(f1);
    await kept(f2, running, stranger.f1);

    const neither = await app.mgmt.delete(path);
    expectError(neither, 400, NOT_READABLE);
    expect(neither.json().message).toContain('Either keepLast OR action ID list should be provided!');
    expectError(await app.mgmt.delete(`${path}?keepLast=-1`), 400, NOT_READABLE);
    const both = await app.mgmt.delete(`${path}?keepLast=1`, { json: [f2] });
    expectError(both, 400, NOT_READABLE);
    expect(both.json().message).toContain('Only one of the parameters should be provided!');
    expectError(await app.mgmt.delete(`${path}?keepLast=two`), 400, 'hawkbit.server.error.rest.param.invalid');
    expectError(await app.mgmt.delete(path, { json: [true] }), 400, NOT_READABLE);
    expectError(await app.mgmt.delete('/rest/v1/targets/nobody-here/actions?keepLast=0'), 404, 'hawkbit.server.error.repo.entityNotFound');
    await kept(f2, running);
  });

  it('needs UPDATE_TARGET (not DELETE_TARGET), as the single DELETE /rest/v1/actions/{id}', async () => {
    const { t, f1, f2 } = await targetWithHistory('perm');
    expect((await app.anon.delete('/rest/v1/actions', { auth: READER, json: [f1] })).status).toBe(403);
    expect((await app.anon.delete(`/rest/v1/targets/${t.controllerId}/actions?keepLast=0`, { auth: READER })).status).toBe(403);
    expect((await app.anon.delete('/rest/v1/actions', { json: [f1] })).status).toBe(401);
    expect((await app.anon.delete(`/rest/v1/actions/${f1}`, { auth: READER })).status).toBe(403);
    await kept(f1);
    expect((await app.anon.delete(`/rest/v1/actions/${f1}`, { auth: UPDATER })).status).toBe(204);
    expect((await app.anon.delete('/rest/v1/actions', { auth: UPDATER, json: [f2] })).status).toBe(204);
    await gone(f1, f2);
  });
});
