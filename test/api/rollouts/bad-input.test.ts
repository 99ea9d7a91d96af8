/**
 * Bad input to the rollout API: each answer has the error status and code of the reference, and a
 * refused create leaves nothing behind (no rollout of that name exists afterwards).
 * @see reference/hawkbit-api.md 3.7 (RolloutCreate rules, preconditions), 4.7 (group rules), 7 (codes), 8 (quotas)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import type { TestResponse } from '../../helpers/server.js';
import {
  ERR, ROLLOUTS, createSet, createTargets, expectError, fleet, incompleteSet, readyRollout, startRolloutApp, uid, waitStatus,
  type RolloutApp,
} from './fixture.js';

describe.each(LOCAL_STORES)('rollout bad input on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  let prefix: string;
  beforeAll(async () => {
    app = await startRolloutApp(kind, { quotas: { maxTargetsPerRolloutGroup: 3 } });
    ds = (await createSet(app)).id;
    prefix = uid();
    await createTargets(app, prefix, 4, { description: 'eu' });
    await createTargets(app, `${prefix}-us`, 2, { description: 'us' });
  });

  /** POSTs a create that must be refused; afterwards no rollout of its name exists. */
  async function refused(body: Record<string, unknown>): Promise<TestResponse> {
    const name = typeof body['name'] === 'string' ? body['name'] : undefined;
    const res = await app.mgmt.post(ROLLOUTS, { json: body });
    if (name !== undefined) {
      const left = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`);
      expect(left.json().total, `a refused create left ${name} behind`).toBe(0);
    }
    return res;
  }
  const base = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: uid('bad'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 2, ...extra,
  });
  /** Explicit groups of 3 targets each (this app's quota), the first with `extra`. */
  const twoGroups = (extra: Record<string, unknown> = {}): Record<string, unknown> => base({
    amountGroups: undefined, groups: [{ name: 'a', targetPercentage: 50, ...extra }, { name: 'b', targetPercentage: 100 }],
  });
  /** 400 with one of the two validation codes, naming the field (or saying `field`). */
  function expectInvalid(res: TestResponse, field: string): void {
    expect(res.status, res.text).toBe(400);
    expect([ERR.body, ERR.constraint], res.text).toContain(res.json().errorCode);
    expect(String(res.json().message).toLowerCase(), res.text).toContain(field.toLowerCase());
  }

  it('unknown set: 404; incomplete set: 400 incomplete; invalidated set: 400 invalid', async () => {
    expectError(await refused(base({ distributionSetId: 987654321 })), 404, ERR.notFound);
    expectError(await refused(base({ distributionSetId: await incompleteSet(app) })), 400, ERR.dsIncomplete);
    const invalid = (await createSet(app)).id;
    const inv = await app.mgmt.post(`/rest/v1/distributionsets/${invalid}/invalidate`, { json: { actionCancelationType: 'none' } });
    expect(inv.status, inv.text).toBe(204);
    expectError(await refused(base({ distributionSetId: invalid })), 400, ERR.dsInvalid);
  });

  it('required fields: name and distributionSetId 400 notReadable, a missing filter 400 rsqlParamSyntax, malformed JSON 400', async () => {
    const noName = base();
    delete noName['name'];
    expectError(await refused(noName), 400, ERR.body, 'name');
    const noSet = base();
    delete noSet['distributionSetId'];
    expectError(await refused(noSet), 400, ERR.body, 'distributionSetId');
    const noFilter = base();
    delete noFilter['targetFilterQuery'];
    expectError(await refused(noFilter), 400, ERR.rsqlSyntax);
    expectError(await app.mgmt.post(ROLLOUTS, { body: '{"name":', headers: { 'content-type': 'application/json' } }), 400, ERR.body);
    expectError(await refused(base({ type: 'gentle' })), 400, ERR.body, 'type');
  });

  it('bad FIQL in the rollout filter or a group filter: 400 with the FIQL codes', async () => {
    expectError(await refused(base({ targetFilterQuery: 'controllerid==' })), 400, ERR.rsqlSyntax);
    expectError(await refused(base({ targetFilterQuery: 'nosuchfield==x' })), 400, ERR.rsqlField);
    expectError(await refused(twoGroups({ targetFilterQuery: 'description==(' })), 400, ERR.rsqlSyntax);
    expectError(await refused(twoGroups({ targetFilterQuery: 'nosuchfield==x' })), 400, ERR.rsqlField);
  });

  // the exact code (constraintViolation, as hawkBit's ValidationException) is checked in known-gaps.test.ts
  it.each([0, 101, -5])('group targetPercentage %s is outside 1..100: 400', async (targetPercentage) => {
    const groups = [{ name: 'g', targetPercentage }, { name: 'b', targetPercentage: 50 }, { name: 'c', targetPercentage: 100 }];
    expectInvalid(await refused(base({ amountGroups: undefined, groups })), 'targetPercentage');
  });

  it('groups that leave matching targets out: 400 "Rollout groups don\'t match all targets"', async () => {
    const onlyUs = [{ name: 'us', targetFilterQuery: 'description==us', targetPercentage: 100 }];
    expectInvalid(await refused(base({ amountGroups: undefined, groups: onlyUs })), "Rollout groups don't match all targets");
    const half = [{ name: 'half', targetPercentage: 50 }];
    expectInvalid(await refused(base({ amountGroups: undefined, groups: half })), "Rollout groups don't match all targets");
  });

  it.each([
    ['success threshold 101', { successCondition: { condition: 'THRESHOLD', expression: '101' } }],
    ['success threshold -1', { successCondition: { condition: 'THRESHOLD', expression: '-1' } }],
    ['error threshold 150', { errorCondition: { condition: 'THRESHOLD', expression: '150' } }],
    ['success threshold "half"', { successCondition: { condition: 'THRESHOLD', expression: 'half' } }],
    ['error threshold "x"', { errorCondition: { condition: 'threshold', expression: 'x' } }],
  ])('%s on the rollout or on a group: 400', async (_what, conditions) => {
    const key = Object.keys(conditions)[0]!;
    expectInvalid(await refused(base(conditions)), key);
    expectInvalid(await refused(twoGroups(conditions)), key);
  });

  // hawkBit: Jackson refuses a weight that is no number (notReadable); bean validation one outside 0..1000 (constraintViolation)
  it.each([[1001, ERR.constraint], [-1, ERR.constraint], ['heavy', ERR.body]])('weight %s: 400 %s', async (weight, code) => {
    expectError(await refused(base({ weight })), 400, code, 'weight');
  });

  it('weights 0 and 1000 are accepted', async () => {
    for (const weight of [0, 1000]) expect((await app.mgmt.post(ROLLOUTS, { json: base({ weight }) })).status).toBe(201);
  });

  it.each([
    ['success condition', { successCondition: { condition: 'MAJORITY', expression: '50' } }],
    ['success action', { successAction: { action: 'REBOOT', expression: '' } }],
    ['error condition', { errorCondition: { condition: 'ALWAYS', expression: '50' } }],
    ['error action NEXTGROUP (errors may only pause)', { errorAction: { action: 'NEXTGROUP', expression: '' } }],
  ])('unknown %s name: 400 notReadable', async (_what, extra) => {
    expectError(await refused(base(extra)), 400, ERR.body);
    expectError(await refused(twoGroups(extra)), 400, ERR.body);
  });

  it('amountGroups and groups together, amountGroups 0 or negative, and bad dynamic rollouts: 400', async () => {
    // MgmtRolloutResource: ValidationException("If 'group' is set the 'amountGroups' must not be set in the request")
    expectError(await refused({ ...twoGroups(), amountGroups: 2 }), 400, ERR.constraint, "If 'group' is set the 'amountGroups' must not be set");
    expectInvalid(await refused(base({ amountGroups: 0 })), 'amountGroups');
    expectInvalid(await refused(base({ amountGroups: -1 })), 'amountGroups');
    // hawkBit's ValidationExceptions for dynamic rollouts (MgmtRolloutResource, JpaRolloutManagement)
    const template = (targetCount: unknown) => ({ dynamicGroupTemplate: { nameSuffix: '-dyn', targetCount } });
    expectError(await refused({ ...twoGroups(), dynamic: true }), 400, ERR.constraint, 'Dynamic rollouts are not supported with groups');
    expectError(await refused(base(template(5))), 400, ERR.constraint, 'Dynamic group template is only allowed for dynamic rollouts');
    expectError(await refused(base({ amountGroups: 0, dynamic: true })), 400, ERR.constraint, 'a dynamic group template must be provided');
    for (const count of [0, -3, null]) {
      expectError(await refused(base({ dynamic: true, ...template(count) })), 400, ERR.constraint, 'targetCount: must be at least 1');
    }
    expectInvalid(await refused(base({ dynamic: true, ...template('many') })), 'targetCount');
  });

  it('quotas: more than 500 groups, or more targets in a group than allowed: 403 tooManyEntries (429 with compat.managementApi 1.x: test/api/compat)', async () => {
    expectError(await refused(base({ amountGroups: 501 })), 403, ERR.quota);
    const many = Array.from({ length: 501 }, (_, i) => ({ name: `g${i}`, targetPercentage: 100 }));
    expectError(await refused(base({ amountGroups: undefined, groups: many })), 403, ERR.quota);
    // 6 targets, at most 3 per group (this app's quota): one group is too many, two are fine
    expectError(await refused(base({ amountGroups: 1 })), 403, ERR.quota);
    const oneBig = [{ name: 'eu', targetFilterQuery: 'description==eu', targetPercentage: 100 }, { name: 'rest', targetPercentage: 100 }];
    expectError(await refused(base({ amountGroups: undefined, groups: oneBig })), 403, ERR.quota);
    expect((await app.mgmt.post(ROLLOUTS, { json: base({ amountGroups: 2 }) })).status).toBe(201);
  });

  it('a taken name: 409 entityAlreadyExists; groups empty, without name or percentage: 400; a non-numeric id: 400', async () => {
    const taken = base();
    expect((await app.mgmt.post(ROLLOUTS, { json: taken })).status).toBe(201);
    const dup = await app.mgmt.post(ROLLOUTS, { json: { ...taken, amountGroups: 3 } });
    expectError(dup, 409, 'hawkbit.server.error.repo.entityAlreadyExists');
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${String(taken['name'])}`)}`)).json().total).toBe(1);
    expectError(await refused(base({ amountGroups: undefined, groups: [] })), 400, ERR.constraint, 'The amount of groups cannot be 0');
    const rest = { name: 'b', targetPercentage: 100 };
    expectError(await refused(base({ amountGroups: undefined, groups: [{ targetPercentage: 50 }, rest] })), 400, ERR.body, 'name');
    expectError(await refused(base({ amountGroups: undefined, groups: [{ name: 'a' }, rest] })), 400, ERR.body, 'targetPercentage');
    expectError(await app.mgmt.get(`${ROLLOUTS}/abc`), 400, 'hawkbit.server.error.rest.param.invalid');
  });

  it('operations on an unknown rollout: 404', async () => {
    for (const what of ['start', 'pause', 'resume', 'stop', 'approve', 'deny', 'triggerNextGroup']) {
      expectError(await app.mgmt.post(`${ROLLOUTS}/987654321/${what}`), 404, ERR.notFound);
    }
  });

  it('approve or deny when not waiting for approval: 400 illegalState', async () => {
    const r = await readyRollout(app, base({ amountGroups: 2 }));
    expect(r.status).toBe('ready');
    expectError(await app.mgmt.post(`${ROLLOUTS}/${r.id}/approve`), 400, ERR.illegalState);
    expectError(await app.mgmt.post(`${ROLLOUTS}/${r.id}/deny?remark=no`), 400, ERR.illegalState);
    expect((await waitStatus(app, r.id, 'ready')).approvalRemark ?? null).toBeNull();
  });

  it('two concurrent starts: exactly one wins, the other is 400 illegalState', async () => {
    const r = await readyRollout(app, base({ amountGroups: 2 }));
    const answers = await Promise.all([app.mgmt.post(`${ROLLOUTS}/${r.id}/start`), app.mgmt.post(`${ROLLOUTS}/${r.id}/start`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([204, 400]);
    expectError(answers.find((a) => a.status === 400)!, 400, ERR.illegalState);
    await waitStatus(app, r.id, 'running');
  });

  it.runIf(kind === 'redis')('two instances on one Redis: concurrent starts through both, exactly one wins', async () => {
    const second = await startRolloutApp(kind, { sameAs: { tenant: app.tenant }, quotas: { maxTargetsPerRolloutGroup: 3 } });
    const r = await readyRollout(app, base({ amountGroups: 2 }));
    const answers = await Promise.all([app.mgmt.post(`${ROLLOUTS}/${r.id}/start`), second.mgmt.post(`${ROLLOUTS}/${r.id}/start`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([204, 400]);
    await waitStatus(second, r.id, 'running');
    expect((await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${r.id}`)}`)).json().total).toBe(6);
  });
});
