import { describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  CREATOR, createRollout, getGroups, getRollout, groupTargets, openAction, rolloutActions, seedFleet, startRolloutApp, waitFor, waitStatus,
} from '../rollouts/fixture.js';

const threshold = (expression: string) => ({ condition: 'THRESHOLD', expression });
const errorOf = (res: { status: number; json: <T>() => T }) => [res.status, res.json<{ errorCode: string }>().errorCode];

describe('rollout create: bad input answers its error and creates nothing', () => {
  it('refuses each bad request with the spec error body', async () => {
    const app = await startRolloutApp('memory', { quotas: { maxTargetsPerRolloutGroup: 3 } });
    const ds = await seedFleet(app, 'bad', 4);
    const base = { name: 'r', distributionSetId: ds, targetFilterQuery: 'controllerid==bad-*', amountGroups: 2 };
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['unknown set', { ...base, distributionSetId: 9999 }, 404, 'hawkbit.server.error.repo.entityNotFound'],
      ['no set', { ...base, distributionSetId: null }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['no filter', { ...base, targetFilterQuery: null }, 400, 'hawkbit.server.error.rest.param.rsqlParamSyntax'],
      ['bad FIQL', { ...base, targetFilterQuery: 'controllerid=!!x' }, 400, 'hawkbit.server.error.rest.param.rsqlParamSyntax'],
      ['unknown FIQL field', { ...base, targetFilterQuery: 'nosuchfield==1' }, 400, 'hawkbit.server.error.rest.param.rsqlInvalidField'],
      ['no name', { ...base, name: undefined }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['percentage 0', { ...base, amountGroups: undefined, groups: [{ name: 'a', targetPercentage: 0 }] }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['percentage 101', { ...base, amountGroups: undefined, groups: [{ name: 'a', targetPercentage: 101 }] }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['percentage not a number', { ...base, amountGroups: undefined, groups: [{ name: 'a', targetPercentage: 'x' }] }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['groups not covering', { ...base, amountGroups: undefined, groups: [{ name: 'a', targetPercentage: 50 }] }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['threshold 101', { ...base, successCondition: threshold('101') }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['threshold not a number', { ...base, errorCondition: threshold('abc') }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['weight 1001', { ...base, weight: 1001 }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['weight -1', { ...base, weight: -1 }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['unknown condition', { ...base, successCondition: { condition: 'ALWAYS', expression: '1' } }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['unknown success action', { ...base, successAction: { action: 'JUMP' } }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['unknown error action', { ...base, errorAction: { action: 'NEXTGROUP' } }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['unknown type', { ...base, type: 'sometimes' }, 400, 'hawkbit.server.error.rest.body.notReadable'],
      ['template, not dynamic', { ...base, dynamicGroupTemplate: { targetCount: 2 } }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['both group forms', { ...base, groups: [{ name: 'a', targetPercentage: 100 }] }, 400, 'hawkbit.server.error.repo.constraintViolation'],
      ['501 groups', { ...base, amountGroups: 501 }, 403, 'hawkbit.server.error.quota.tooManyEntries'],
      ['a group over the target quota', { ...base, amountGroups: 1 }, 403, 'hawkbit.server.error.quota.tooManyEntries'],
    ];
    for (const [what, body, status, code] of cases) {
      const res = await app.mgmt.post('/rest/v1/rollouts', { json: body });
      expect([what, ...errorOf(res)]).toEqual([what, status, code]);
    }
    const list = await app.mgmt.get('/rest/v1/rollouts');
    expect(list.json<{ total: number }>().total).toBe(0);
    // an invalidated set
    expect((await app.mgmt.post(`/rest/v1/distributionsets/${ds}/invalidate`, { json: { actionCancelationType: 'none' } })).status).toBe(204);
    expect(errorOf(await app.mgmt.post('/rest/v1/rollouts', { json: base }))).toEqual([400, 'hawkbit.server.error.distributionset.invalid']);
  });

  it('refuses a filter that matches nothing (400 constraintViolation, as every hawkBit release) and creates nothing', async () => {
    const app = await startRolloutApp('memory');
    const ds = await seedFleet(app, 'x', 1);
    const res = await app.mgmt.post('/rest/v1/rollouts', {
      json: { name: 'empty', distributionSetId: ds, targetFilterQuery: 'controllerid==nobody', amountGroups: 3 },
    });
    expect(errorOf(res)).toEqual([400, 'hawkbit.server.error.repo.constraintViolation']);
    expect(res.json<{ message: string }>().message).toBe('Rollout does not match any existing targets');
    expect((await app.mgmt.get('/rest/v1/rollouts')).json<{ total: number }>().total).toBe(0);
  });

  it('starts by itself once startAt has come (auto-start)', async () => {
    const app = await startRolloutApp('memory');
    const ds = await seedFleet(app, 'auto', 2);
    const r = await createRollout(app, { name: 'auto', distributionSetId: ds, targetFilterQuery: 'controllerid==auto-*', startAt: Date.now() });
    const running = await waitStatus(app, r.id, 'running');
    expect(running.totalTargetsPerStatus).toMatchObject({ running: 2, notstarted: 0 });
    expect((await app.mgmt.post('/rest/v1/rollouts', {
      json: { name: 'later', distributionSetId: ds, targetFilterQuery: 'controllerid==auto-*', startAt: Date.now() + 3_600_000 },
    })).status).toBe(201);
  });

  it('takes a name only once (409)', async () => {
    const app = await startRolloutApp('memory');
    const ds = await seedFleet(app, 'n', 1);
    await createRollout(app, { name: 'Same', distributionSetId: ds, targetFilterQuery: 'controllerid==n-*' });
    const res = await app.mgmt.post('/rest/v1/rollouts', { json: { name: 'same', distributionSetId: ds, targetFilterQuery: 'controllerid==n-*' } });
    expect(errorOf(res)).toEqual([409, 'hawkbit.server.error.repo.entityAlreadyExists']);
  });
});

describe.each(LOCAL_STORES)('rollout operations (%s store)', (kind) => {
  it('explicit groups with their own filter; lists with FIQL, sort and full representation; PUT name and description', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'g', 6);
    const r = await createRollout(app, {
      name: 'explicit', distributionSetId: ds, targetFilterQuery: 'controllerid==g-*', type: 'soft', weight: 400,
      groups: [
        { name: 'canary', targetFilterQuery: 'controllerid==g-1', targetPercentage: 100, successCondition: threshold('100') },
        { name: 'rest', targetPercentage: '100', successAction: { action: 'pause' } },
      ],
    });
    await waitStatus(app, r.id, 'ready');
    const [canary, rest] = await getGroups(app, r.id);
    expect([canary?.name, canary?.totalTargets, rest?.name, rest?.totalTargets]).toEqual(['canary', 1, 'rest', 5]);
    expect(await groupTargets(app, r.id, canary?.id ?? 0)).toEqual(['g-1']);
    const one = await app.mgmt.get(`/rest/v1/rollouts/${r.id}/deploygroups/${rest?.id ?? 0}`);
    expect(one.json<Record<string, unknown>>()).toMatchObject({
      successAction: { action: 'PAUSE', expression: '' }, successCondition: { condition: 'THRESHOLD', expression: '50' },
    });
    const other = await createRollout(app, { name: 'other', distributionSetId: ds, targetFilterQuery: 'controllerid==g-2' });
    expect((await app.mgmt.get(`/rest/v1/rollouts/${other.id}/deploygroups/${rest?.id ?? 0}`)).status).toBe(404);
    const listed = await app.mgmt.get('/rest/v1/rollouts?q=name==expl*&representation=full');
    expect(listed.json<{ total: number; content: { name: string; totalGroups: number; type: string; weight: number }[] }>()).toMatchObject({
      total: 1, content: [{ name: 'explicit', totalGroups: 2, type: 'soft', weight: 400 }],
    });
    const sorted = await app.mgmt.get('/rest/v1/rollouts?sort=name:DESC');
    expect(sorted.json<{ content: { name: string }[] }>().content.map((x) => x.name)).toEqual(['other', 'explicit']);
    expect(errorOf(await app.mgmt.get('/rest/v1/rollouts?q=bogus==1'))).toEqual([400, 'hawkbit.server.error.rest.param.rsqlInvalidField']);
    const put = await app.mgmt.put(`/rest/v1/rollouts/${r.id}`, { json: { name: 'renamed', description: 'now' } });
    expect(put.json<{ name: string; description: string }>()).toMatchObject({ name: 'renamed', description: 'now' });
  });

  it('needs approval when approval is on and the creator may not approve; approve and deny keep the remark', async () => {
    const app = await startRolloutApp(kind, {
      tenantConfig: { 'rollout.approval.enabled': true },
    });
    const ds = await seedFleet(app, 'a', 2);
    const as = (body: Record<string, unknown>) => app.mgmt.post('/rest/v1/rollouts', { json: body, auth: CREATOR });
    const first = (await as({ name: 'one', distributionSetId: ds, targetFilterQuery: 'controllerid==a-*' })).json<{ id: number }>();
    const second = (await as({ name: 'two', distributionSetId: ds, targetFilterQuery: 'controllerid==a-*' })).json<{ id: number }>();
    await waitStatus(app, first.id, 'waiting_for_approval');
    await waitStatus(app, second.id, 'waiting_for_approval');
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${first.id}/start`))).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${first.id}/approve?remark=fine`, { auth: CREATOR })).status).toBe(403);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${first.id}/approve?remark=fine`)).status).toBe(204);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${second.id}/deny?remark=no`)).status).toBe(204);
    expect(await getRollout(app, first.id)).toMatchObject({ status: 'ready', approvalRemark: 'fine', approveDecidedBy: 'admin' });
    expect(await getRollout(app, second.id)).toMatchObject({ status: 'approval_denied', approvalRemark: 'no' });
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${first.id}/approve`))).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
    // the admin holds APPROVE_ROLLOUT: no approval needed
    const own = await createRollout(app, { name: 'three', distributionSetId: ds, targetFilterQuery: 'controllerid==a-*' });
    await waitStatus(app, own.id, 'ready');
  });

  it('stop while running: scheduled actions removed, open groups finished, active actions canceled', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 's', 4);
    const r = await createRollout(app, { name: 'stopme', distributionSetId: ds, targetFilterQuery: 'controllerid==s-*', amountGroups: 2 });
    await waitStatus(app, r.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/start`)).status).toBe(204);
    await waitStatus(app, r.id, 'running');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/stop`)).status).toBe(204);
    await waitStatus(app, r.id, 'stopped');
    expect((await getGroups(app, r.id)).map((g) => g.status)).toEqual(['finished', 'finished']);
    const actions = await rolloutActions(app, r.id);
    expect(actions.map((a) => a.status).sort()).toEqual(['canceling', 'canceling']);
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${r.id}/stop`))).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
    // hawkBit's MgmtRolloutResource: ValidationException, so constraintViolation
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${r.id}/retry`))).toEqual([400, 'hawkbit.server.error.repo.constraintViolation']);
  });

  it('delete: hard while only scheduled actions exist, soft (deleted) once actions ran', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'd', 4);
    const ready = await createRollout(app, { name: 'never', distributionSetId: ds, targetFilterQuery: 'controllerid==d-*' });
    await waitStatus(app, ready.id, 'ready');
    expect((await app.mgmt.delete(`/rest/v1/rollouts/${ready.id}`)).status).toBe(204);
    await waitFor(() => app.mgmt.get(`/rest/v1/rollouts/${ready.id}`), (res) => res.status === 404, { what: 'hard delete' });

    const ran = await createRollout(app, { name: 'ran', distributionSetId: ds, targetFilterQuery: 'controllerid==d-*', amountGroups: 2 });
    await waitStatus(app, ran.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${ran.id}/start`)).status).toBe(204);
    await waitStatus(app, ran.id, 'running');
    expect((await app.mgmt.delete(`/rest/v1/rollouts/${ran.id}`)).status).toBe(204);
    const gone = await waitStatus(app, ran.id, 'deleted');
    expect(gone.deleted).toBe(true);
    const actions = await rolloutActions(app, ran.id);
    expect(actions.map((a) => a.status)).toEqual(['canceled', 'canceled']);
    expect((await app.mgmt.get('/rest/v1/rollouts')).json<{ total: number }>().total).toBe(0);
    expect((await app.mgmt.get('/rest/v1/rollouts?soft_deleted_mode=INCLUDE_SOFT_DELETED')).json<{ total: number }>().total).toBe(1);
    expect(errorOf(await app.mgmt.put(`/rest/v1/rollouts/${ran.id}`, { json: { name: 'x' } }))).toEqual([403, 'hawkbit.server.error.entityReadOnly']);
  });

  it('invalidating the set stops its rollouts (soft) or deletes them (force)', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'i', 2);
    const r = await createRollout(app, { name: 'inv', distributionSetId: ds, targetFilterQuery: 'controllerid==i-*' });
    await waitStatus(app, r.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/distributionsets/${ds}/invalidate`, { json: { actionCancelationType: 'soft' } })).status).toBe(204);
    await waitStatus(app, r.id, 'stopped');
  });

  it('triggerNextGroup starts the next scheduled group before the success condition holds', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 't', 4);
    const r = await createRollout(app, {
      name: 'push', distributionSetId: ds, targetFilterQuery: 'controllerid==t-*', amountGroups: 2, successCondition: threshold('100'),
    });
    await waitStatus(app, r.id, 'ready');
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${r.id}/triggerNextGroup`))).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/start`)).status).toBe(204);
    await waitStatus(app, r.id, 'running');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/triggerNextGroup`)).status).toBe(204);
    const [, g2] = await waitFor(() => getGroups(app, r.id), (gs) => gs.every((g) => g.status === 'running'), { what: 'both groups running' });
    for (const cid of await groupTargets(app, r.id, g2?.id ?? 0)) await openAction(app, cid);
    expect(errorOf(await app.mgmt.post(`/rest/v1/rollouts/${r.id}/triggerNextGroup`))).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
  });
});
