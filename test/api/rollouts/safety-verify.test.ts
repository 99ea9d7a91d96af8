/**
 * The rollout's `verifyInstall` control (issue 25), driven over HTTP: an action closed with success
 * counts as running (verifying) until its device shows the set: the version attribute it reports
 * (configData, which the poll after a success asks for) or the running version it reports (PUT
 * installedBase). A poll alone confirms nothing (a device back on its old A/B slot polls just the
 * same); another version, another set or a failure report counts as an error with the reason in the
 * action's history. A rollout without it finishes actions at their success feedback.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ActorRuntime } from '../../../src/actors/runtime.js';
import { ACTORS } from '../../../src/actors/kinds.js';
import { checkShownAttributes, checkShownSet, type InstallCheckDeps } from '../../../src/device/install-verification.js';
import { TARGET, type TargetRecord } from '../../../src/domain/target.js';
import type { Reads, Store } from '../../../src/store/port.js';
import { STORES } from '../../helpers/app.js';
import {
  ERR, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getRollout, readyRollout, runDevice, runningRollout,
  startRolloutApp, uid, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

const LONG = 90_000;
const MINUTE = 60_000;
const NEVER_PAUSE = { errorCondition: { condition: 'THRESHOLD', expression: '100' } };

describe.each(STORES)('rollout verifyInstall on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const rolloutActions = async (id: number): Promise<Json[]> => {
    const res = await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${id}`)}&representation=full&limit=100`);
    expect(res.status, res.text).toBe(200);
    return res.json().content;
  };
  const history = async (action: Json): Promise<string> => {
    const res = await app.mgmt.get(String(action._links.status.href).replace(/^https?:\/\/[^/]+/, ''));
    expect(res.status, res.text).toBe(200);
    return res.text;
  };

  const setOf = async (id: number): Promise<{ name: string; version: string }> => {
    const res = await app.mgmt.get(`/rest/v1/distributionsets/${id}`);
    expect(res.status, res.text).toBe(200);
    return { name: res.json().name, version: res.json().version };
  };
  const byId = async (rollout: number): Promise<Map<number, Json>> =>
    new Map((await rolloutActions(rollout)).map((a) => [a.id as number, a]));

  it('a poll confirms nothing; the version attribute confirms or fails it; a failure report fails it, each with its reason', async () => {
    const p = uid();
    const [good, back, failing] = await createTargets(app, p, 3);
    const set = await setOf(ds);
    const r = await runningRollout(app, {
      name: uid('verify'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE, verifyInstall: { attribute: 'sw_version' },
    });
    expect(r.verifyInstall).toEqual({ attribute: 'sw_version' });
    const goodAction = await runDevice(app, good!, 'success');
    const backAction = await runDevice(app, back!, 'success');
    const failAction = await runDevice(app, failing!, 'success');
    // all three closed with success and polling again (the one that fell back to its old slot too): none confirmed
    for (const cid of [good!, back!, failing!]) {
      const poll = await app.device(cid).poll();
      // the poll after a success asks for the attributes, as hawkBit's does
      expect(poll._links.configData, JSON.stringify(poll)).toBeDefined();
    }
    const waiting = await getRollout(app, r.id);
    expect(waiting.totalTargetsPerStatus).toEqual(counts({ running: 3 }));
    expect(waiting.status).toBe('running');

    // an attribute report without the version attribute decides nothing
    expect((await app.device(good!).put('/configData', { data: { board: 'rev-b' } })).status).toBe(200);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 3 }));
    // the device back on its old slot reports the old version; the good one the set's (case and blanks aside)
    expect((await app.device(back!).put('/configData', { data: { sw_version: '0.9-old', board: 'rev-b' } })).status).toBe(200);
    expect((await app.device(good!).put('/configData', { mode: 'merge', data: { sw_version: ` ${set.version.toUpperCase()} ` } })).status).toBe(200);
    // the third reports failure on the action it closed with success
    const fb = await app.device(failing!).post(`/deploymentBase/${failAction}/feedback`, {
      status: { execution: 'closed', result: { finished: 'failure' }, details: ['booted the previous slot'] },
    });
    expect(fb.status, fb.text).toBe(200);

    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 1, error: 2 }));
    const actions = await byId(r.id);
    expect(actions.get(goodAction)).toMatchObject({ detailStatus: 'finished', active: false });
    expect(actions.get(backAction)).toMatchObject({ detailStatus: 'error', active: false });
    expect(actions.get(failAction)).toMatchObject({ detailStatus: 'error', active: false });
    expect(await history(actions.get(goodAction))).toContain(`Install verified: the target reports sw_version '`);
    expect(await history(actions.get(backAction))).toContain(`Install not verified: the target reports sw_version '0.9-old', not the version of set ${set.name}:${set.version}`);
    const failed = await history(actions.get(failAction));
    expect(failed).toContain('Install not verified: the target reported failure after its success feedback');
    expect(failed).toContain('booted the previous slot');
    // decided: further reports change nothing, a late failure is refused as for any closed action
    expect((await app.device(good!).put('/configData', { data: { sw_version: 'other' } })).status).toBe(200);
    const late = await app.device(good!).post(`/deploymentBase/${goodAction}/feedback`, {
      status: { execution: 'closed', result: { finished: 'failure' } },
    });
    expect(late.status, late.text).toBe(410);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ finished: 1, error: 2 }));
  }, LONG);

  it('the running version a device reports (PUT installedBase) confirms the set or, naming another, fails it', async () => {
    const p = uid();
    const [good, back] = await createTargets(app, p, 2);
    const [set, old] = [await setOf(ds), await setOf((await createSet(app)).id)];
    const r = await runningRollout(app, { name: uid('verify-run'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE, verifyInstall: true });
    const goodAction = await runDevice(app, good!, 'success');
    const backAction = await runDevice(app, back!, 'success');
    await app.device(good!).poll();
    await app.device(back!).poll();
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 2 }));

    const same = await app.device(good!).put('/installedBase', set);
    expect(same.status, same.text).toBe(200);
    // the old set: the action fails, and the set is recorded as installed (hawkBit's offline assignment)
    const other = await app.device(back!).put('/installedBase', old);
    expect(other.status, other.text).toBe(201);
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 1, error: 1 }));
    const actions = await byId(r.id);
    expect(actions.get(goodAction)).toMatchObject({ detailStatus: 'finished' });
    expect(actions.get(backAction)).toMatchObject({ detailStatus: 'error' });
    expect(await history(actions.get(goodAction))).toContain(`Install verified: the target reports running ${set.name}:${set.version}`);
    expect(await history(actions.get(backAction)))
      .toContain(`Install not verified: the target reports running ${old.name}:${old.version}, not set ${set.name}:${set.version}`);
    const target = await app.mgmt.get(`/rest/v1/targets/${back!}/installedDS`);
    expect(target.status, target.text).toBe(200);
    expect(target.json()).toMatchObject(old);
  }, LONG);

  /** The real store, counting the records read by kind: through its cached view, and from the store itself. */
  function countingStore(store: Store): { store: InstallCheckDeps['store']; cached: string[]; direct: string[] } {
    const cached: string[] = [];
    const direct: string[] = [];
    const counted = (reads: Reads, into: string[]): Reads => ({
      get: (tenant, kind, id) => (into.push(kind), reads.get(tenant, kind, id)),
      getMany: (tenant, kind, ids) => (into.push(...ids.map(() => kind)), reads.getMany(tenant, kind, ids)),
      lookup: (tenant, kind, index, key) => reads.lookup(tenant, kind, index, key),
      members: (tenant, kind, index, key, page) => reads.members(tenant, kind, index, key, page),
    });
    const view = Object.assign(Object.create(store.cached) as Store['cached'], counted(store.cached, cached));
    return { store: { ...counted(store, direct), cached: view }, cached, direct };
  }

  it('reads what the report needs, through the cached view: the action for a report naming no version; the set, no module, for a running version', async () => {
    const p = uid();
    const [one] = await createTargets(app, p, 1);
    const set = await setOf(ds);
    const r = await runningRollout(app, { name: uid('verify-reads'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE, verifyInstall: { attribute: 'sw_version' } });
    await runDevice(app, one!, 'success');
    const targetId = await app.store.lookup(app.tenant, TARGET, 'controllerId', one!);
    const target = (await app.store.get<TargetRecord>(app.tenant, TARGET, targetId!))!.value;
    expect(target.verifyAction).toBeTypeOf('number');
    // the runtime is the server's kind (a second one on the same store, as another process's); the
    // server's own dispatcher handles the effects, which the rollout's counts show below
    const deps = (store: InstallCheckDeps['store']): InstallCheckDeps => ({ store, runtime: new ActorRuntime(app.store, ACTORS), dispatcher: { settle: async () => true } });

    const none = countingStore(app.store);
    await checkShownAttributes(deps(none.store), app.tenant, target, { board: 'rev-b', sw_version: null }, Date.now());
    expect({ cached: none.cached, direct: none.direct }).toEqual({ cached: ['action'], direct: [] });
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 1 }));

    const running = countingStore(app.store);
    await checkShownSet(deps(running.store), app.tenant, target, set, Date.now());
    expect({ cached: running.cached, direct: running.direct }).toEqual({ cached: ['action', 'ds'], direct: [] });
    expect((await waitStatus(app, r.id, 'finished')).totalTargetsPerStatus).toEqual(counts({ finished: 1 }));

    // decided: the next report finds it so in the store itself before telling the target to stop waiting
    const late = countingStore(app.store);
    await checkShownAttributes(deps(late.store), app.tenant, target, { sw_version: set.version }, Date.now());
    expect(late.direct).toEqual(['action']);
  }, LONG);

  it('with actionTimeout, a device that never polls again after its success feedback is closed as a timeout', async () => {
    const p = uid();
    const [quiet] = await createTargets(app, p, 1);
    const r = await runningRollout(app, {
      name: uid('verify-timeout'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      verifyInstall: true, actionTimeout: { inProgressMinutes: 1 },
    });
    const id = await runDevice(app, quiet!, 'success');
    await app.pass(Date.now() + 2 * MINUTE);
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1 }));
    const [a] = await rolloutActions(r.id);
    expect(a).toMatchObject({ id, detailStatus: 'error' });
    expect(await history(a)).toContain('Action timed out');
  }, LONG);

  it('without verifyInstall the success feedback finishes the action at once; PUT sets it before the start only; bad input refused', async () => {
    const p = uid();
    const [one] = await createTargets(app, p, 1);
    const plain = await runningRollout(app, { name: uid('plain'), targetFilterQuery: fleet(p), distributionSetId: ds });
    expect(Object.keys(plain)).not.toContain('verifyInstall');
    await runDevice(app, one!, 'success');
    expect((await waitStatus(app, plain.id, 'finished')).totalTargetsPerStatus).toEqual(counts({ finished: 1 }));

    const ready = await readyRollout(app, { name: uid('put'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const put = await app.mgmt.put(`${ROLLOUTS}/${ready.id}`, { json: { verifyInstall: true } });
    expect(put.status, put.text).toBe(200);
    expect(put.json().verifyInstall).toBe(true);
    const full = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${ready.id}`)}&representation=full`);
    expect(full.json().content[0].verifyInstall).toBe(true);
    const removed = await app.mgmt.put(`${ROLLOUTS}/${ready.id}`, { json: { verifyInstall: null } });
    expect(Object.keys(removed.json())).not.toContain('verifyInstall');
    const name = uid('bad-verify');
    expectError(await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, verifyInstall: 'yes' } }), 400, ERR.body, 'verifyInstall');
    expectError(await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, verifyInstall: { attribute: '' } } }), 400, ERR.body, 'verifyInstall');
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`)).json().total).toBe(0);
  }, LONG);
});
