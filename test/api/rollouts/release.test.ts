/**
 * Release controls (issue 25): `maxInFlight` and `ramp` hold a started group's actions back and the
 * engine releases them a few at a time. The engine runs only when the test says so (`pass(now)`), so
 * the test owns its clock; devices are driven over DDI.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  ROLLOUTS, counts, createRollout, createSet, createTargets, expectError, fleet, getGroups, getRollout, groupTargets, op, runDevice,
  startRolloutApp, uid, waitFor, type Json, type RolloutApp,
} from './fixture.js';

/** Every safety field's bad value: hawkBit's code for a body that fails its schema (the message names the field). */
const RELEASE_INVALID = 'hawkbit.server.error.rest.body.notReadable';
const ERR_ILLEGAL = 'hawkbit.server.error.rollout.illegalState';
const T0 = Date.UTC(2030, 0, 1);

describe.each(STORES)('rollout release controls on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind, { manualEngine: true });
    ds = (await createSet(app)).id;
  });

  /** A rollout of `n` fresh targets in one group, created and started with engine passes at T0. */
  async function started(n: number, extra: Record<string, unknown>): Promise<{ id: number; devices: string[]; created: Json }> {
    const p = uid();
    const devices = await createTargets(app, p, n);
    const created = await createRollout(app, { name: uid('rel'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 1, ...extra });
    await app.pass(T0);
    expect((await getRollout(app, created.id)).status).toBe('ready');
    await op(app, created.id, 'start');
    await app.pass(T0); // starting -> running: actions scheduled, the group runs, the first releases in the same pass
    expect((await getRollout(app, created.id)).status).toBe('running');
    return { id: created.id, devices, created };
  }

  /** A create with `extra` over a matching target is refused with `code` naming `mentions`, and no rollout of its name exists. */
  async function refusedWhole(extra: Record<string, unknown>, code: string, mentions: string): Promise<void> {
    const p = uid();
    await createTargets(app, p, 1);
    const name = uid('bad');
    const res = await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, ...extra } });
    expectError(res, 400, code, mentions);
    expect((await app.mgmt.get(`${ROLLOUTS}?q=name==${name}`)).json().total).toBe(0);
  }

  const perStatus = async (id: number): Promise<Json> => (await getRollout(app, id)).totalTargetsPerStatus;

  /** The devices whose poll shows a deployment (the released ones). */
  async function released(devices: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const d of devices) if ((await app.device(d).poll())._links?.deploymentBase !== undefined) out.push(d);
    return out;
  }

  it('maxInFlight: at most that many actions run at once; a finished one makes room for the next', async () => {
    const { id, devices, created } = await started(5, { maxInFlight: 2 });
    expect(created.maxInFlight).toBe(2);
    expect((await getRollout(app, id)).maxInFlight).toBe(2);
    expect(await perStatus(id)).toEqual(counts({ running: 2, scheduled: 3 }));
    expect(await released(devices)).toEqual(devices.slice(0, 2));
    await app.pass(T0 + 200); // full: nothing more
    expect(await perStatus(id)).toEqual(counts({ running: 2, scheduled: 3 }));

    await runDevice(app, devices[0] as string, 'success');
    await runDevice(app, devices[1] as string, 'failure');
    await app.pass(T0 + 300);
    expect(await perStatus(id)).toEqual(counts({ running: 2, scheduled: 1, finished: 1, error: 1 }));
    expect(await released(devices)).toEqual(devices.slice(2, 4));
  });

  it('ramp maxPerMinute: an even pace on the engine clock, not a burst; a stalled ramp catches up at most 2 s', async () => {
    const { id, created } = await started(12, { ramp: { maxPerMinute: 60 } });
    expect(created.ramp).toEqual({ maxPerMinute: 60 });
    const runningAt = async (at: number): Promise<number> => {
      await app.pass(at);
      return (await perStatus(id)).running as number;
    };
    expect(await runningAt(T0 + 100)).toBe(1); // the first at the start
    expect(await runningAt(T0 + 600)).toBe(1); // one a second
    expect(await runningAt(T0 + 1_100)).toBe(2);
    expect(await runningAt(T0 + 1_150)).toBe(2);
    expect(await runningAt(T0 + 3_600)).toBe(4); // due at +2.1 s and +3.1 s
    // a minute without passes: 2 s of catch-up (3 releases), not the 56 the minute would have held
    expect(await runningAt(T0 + 63_600)).toBe(7);
    expect(await runningAt(T0 + 64_600)).toBe(8);
  });

  it('ramp exponential: the rate steps up each time `notified` is reached again', async () => {
    const ramp = { exponential: { baseRatePerMinute: 60, incrementFactor: 2, increaseAfter: { notified: 2 } } };
    const { id, created } = await started(20, { ramp });
    expect(created.ramp).toEqual(ramp);
    const runningAt = async (at: number): Promise<number> => {
      await app.pass(at);
      return (await perStatus(id)).running as number;
    };
    expect(await runningAt(T0 + 500)).toBe(1); // the first at the start, 60/min
    expect(await runningAt(T0 + 1_000)).toBe(2);
    expect(await runningAt(T0 + 2_000)).toBe(3); // 2 notified: 120/min from here
    expect(await runningAt(T0 + 2_500)).toBe(4);
    expect(await runningAt(T0 + 3_000)).toBe(5); // 4 notified: 240/min
    expect(await runningAt(T0 + 3_500)).toBe(7); // due at +3.25 s and +3.5 s
  });

  describe('soak', () => {
    const SOAK = 10 * 60_000;
    /** Two groups of two, success at 50 %, errors above 40 % pause; soak 10 minutes. */
    async function soaked(): Promise<{ id: number; devices: string[]; g1: number; g2: number }> {
      const errorCondition = { condition: 'THRESHOLD', expression: '40' };
      const { id, devices, created } = await started(4, { amountGroups: 2, soak: { minutes: 10 }, errorCondition });
      expect(created.soak).toEqual({ minutes: 10 });
      const [g1, g2] = await getGroups(app, id);
      expect([g1.status, g2.status]).toEqual(['running', 'scheduled']);
      await runDevice(app, devices[0] as string, 'success');
      await app.pass(T0 + 1_000); // 1 of 2 finished: the success condition holds, the soak begins
      const soaking = await getGroups(app, id);
      expect(soaking.map((g: Json) => g.status)).toEqual(['running', 'scheduled']);
      expect(soaking[0].soakUntil).toBe(T0 + 1_000 + SOAK);
      expect(soaking[1]).not.toHaveProperty('soakUntil');
      return { id, devices, g1: g1.id, g2: g2.id };
    }
    const statuses = async (id: number): Promise<string[]> => (await getGroups(app, id)).map((g: Json) => g.status);

    it('the next group starts only once the soak is over', async () => {
      const { id } = await soaked();
      await app.pass(T0 + 1_000 + SOAK - 1);
      expect(await statuses(id)).toEqual(['running', 'scheduled']);
      await app.pass(T0 + 1_000 + SOAK);
      expect(await statuses(id)).toEqual(['running', 'running']);
    });

    it('a group that completes while soaking still holds its successor until the soak is over', async () => {
      const { id, devices } = await soaked();
      await runDevice(app, devices[1] as string, 'success');
      await app.pass(T0 + 2_000);
      expect(await statuses(id)).toEqual(['finished', 'scheduled']);
      await app.pass(T0 + 1_000 + SOAK - 1);
      expect(await statuses(id)).toEqual(['finished', 'scheduled']);
      await app.pass(T0 + 1_000 + SOAK);
      expect(await statuses(id)).toEqual(['finished', 'running']);
    });

    it('errors reported during the soak count: over the error threshold the group errs and the next never starts', async () => {
      const { id, devices } = await soaked();
      await runDevice(app, devices[1] as string, 'failure'); // 1 of 2 in error: 50 % > 40 %
      await app.pass(T0 + 2_000);
      expect((await getRollout(app, id)).status).toBe('paused');
      await app.pass(T0 + 1_000 + SOAK);
      expect(await statuses(id)).toEqual(['error', 'scheduled']);
    });

    it.each([0, -1, 43_201])('soak of %s minutes: 400 body.notReadable', async (minutes) => {
      const res = await app.mgmt.post(ROLLOUTS, { json: { name: uid('bad'), targetFilterQuery: fleet('none'), distributionSetId: ds, soak: { minutes } } });
      expectError(res, 400, RELEASE_INVALID, 'soak.minutes');
    });
  });

  describe('groupOrder', () => {
    /** The controller ids of each group of a created rollout. */
    async function groupsOf(id: number): Promise<string[][]> {
      await app.pass(T0);
      const out: string[][] = [];
      for (const g of await getGroups(app, id)) out.push(await groupTargets(app, id, g.id));
      return out;
    }
    const rollout = async (p: string, groupOrder: unknown, amountGroups = 2): Promise<Json> =>
      createRollout(app, { name: uid('order'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups, groupOrder });

    it('created is the creation order; random with the same seed gives the same groups, another seed others', async () => {
      const p = uid();
      const devices = await createTargets(app, p, 12);
      const created = await groupsOf((await rollout(p, { order: 'created' })).id);
      expect(created.flat().sort()).toEqual([...devices].sort());
      const first = await rollout(p, { order: 'random', seed: 42 });
      expect(first.groupOrder).toEqual({ order: 'random', seed: 42 });
      const a = await groupsOf(first.id);
      const b = await groupsOf((await rollout(p, { order: 'random', seed: 42 })).id);
      const c = await groupsOf((await rollout(p, { order: 'random', seed: 7 })).id);
      expect(b).toEqual(a);
      expect(c).not.toEqual(a);
      expect(a.flat().sort()).toEqual([...devices].sort());
      expect(a.map((g) => g.length)).toEqual([6, 6]);
      // without a seed one is chosen and shown, so the groups can be made again
      const unseeded = await rollout(p, { order: 'random' });
      expect(Number.isInteger(unseeded.groupOrder.seed)).toBe(true);
      const again = await groupsOf((await rollout(p, { order: 'random', seed: unseeded.groupOrder.seed })).id);
      expect(again).toEqual(await groupsOf(unseeded.id));
    });

    it('spread puts the targets of one site into different groups', async () => {
      const p = uid();
      const devices = await createTargets(app, p, 8);
      const site = new Map(devices.map((d, i) => [d, `site-${Math.floor(i / 2)}`])); // two targets per site, created together
      for (const d of devices) expect((await app.device(d).put('/configData', { data: { site: site.get(d) } })).status).toBe(200);
      // created order would put both targets of each site into one group
      const byCreation = await groupsOf((await rollout(p, { order: 'created' }, 4)).id);
      expect(byCreation.map((g) => new Set(g.map((d) => site.get(d))).size)).toEqual([1, 1, 1, 1]);
      const spread = await groupsOf((await rollout(p, { order: 'spread', seed: 3, attribute: 'site' })).id);
      for (const g of spread) expect(new Set(g.map((d) => site.get(d))).size).toBe(4);
    });

    it.each([
      ['an unknown order', { order: 'alphabetical' }, 'order'],
      ['spread without attribute', { order: 'spread', seed: 1 }, 'attribute'],
      ['an attribute without spread', { order: 'random', seed: 1, attribute: 'site' }, 'attribute'],
      ['a negative seed', { order: 'random', seed: -1 }, 'seed'],
      ['a seed with created', { order: 'created', seed: 1 }, 'seed'],
    ])('%s: 400 body.notReadable', async (_what, groupOrder, mentions) => {
      const res = await app.mgmt.post(ROLLOUTS, { json: { name: uid('bad'), targetFilterQuery: fleet('none'), distributionSetId: ds, groupOrder } });
      expectError(res, 400, RELEASE_INVALID, mentions);
    });

    it('PUT before the start divides the targets again: the same groups as a rollout created with that order, shown in full', async () => {
      const p = uid();
      const devices = await createTargets(app, p, 12);
      const r = await rollout(p, { order: 'created' }, 3);
      const before = await groupsOf(r.id);
      const put = await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'random', seed: 42 } } });
      expect(put.status, put.text).toBe(200);
      expect(put.json().groupOrder).toEqual({ order: 'random', seed: 42 });
      const full = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${r.id}`)}&representation=full`);
      expect(full.json().content[0].groupOrder).toEqual({ order: 'random', seed: 42 });
      // divided before the answer: read without an engine pass
      const read = async (id: number): Promise<string[][]> => {
        const out: string[][] = [];
        for (const g of await getGroups(app, id)) out.push(await groupTargets(app, id, g.id));
        return out;
      };
      const after = await read(r.id);
      expect(after).not.toEqual(before);
      expect(after).toEqual(await groupsOf((await rollout(p, { order: 'random', seed: 42 }, 3)).id));
      expect(after.map((g) => g.length)).toEqual([4, 4, 4]);
      expect(after.flat().sort()).toEqual([...devices].sort());
      // without a seed one is chosen and shown; back to created gives the first division again
      const unseeded = (await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'random' } } })).json();
      expect(Number.isInteger(unseeded.groupOrder.seed)).toBe(true);
      expect((await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'created' } } })).status).toBe(200);
      expect(await read(r.id)).toEqual(before);
      // the actions follow the new division once started
      expect((await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'random', seed: 42 } } })).status).toBe(200);
      await op(app, r.id, 'start');
      await app.pass(T0);
      expect(await released(devices)).toEqual(devices.filter((d) => after[0]!.includes(d)));
      expectError(await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'created' } } }), 400, ERR_ILLEGAL, 'release controls');
      expect((await getRollout(app, r.id)).groupOrder).toEqual({ order: 'random', seed: 42 });
    });

    it('a regroup a stop cut short (the flag without the division) is done by the engine before the start', async () => {
      const p = uid();
      const devices = await createTargets(app, p, 8);
      const r = await rollout(p, { order: 'created' });
      const before = await groupsOf(r.id);
      const stored = (await app.store.get<Json>(app.tenant, 'rollout', r.id))!;
      const flagged = { ...stored.value, release: { groupOrder: { order: 'random', seed: 5 } }, regroup: true };
      expect((await app.store.commit(app.tenant, { writes: [{ kind: 'rollout', id: r.id, expect: stored.version, before: stored.value, after: flagged }] })).ok).toBe(true);
      expect(await groupsOf(r.id)).not.toEqual(before); // groupsOf runs a pass
      expect(await groupsOf(r.id)).toEqual(await groupsOf((await rollout(p, { order: 'random', seed: 5 })).id));
      expect((await app.store.get<Json>(app.tenant, 'rollout', r.id))!.value.regroup).toBeUndefined();
      expect((await groupsOf(r.id)).flat().sort()).toEqual([...devices].sort());
    });

    it('PUT with a bad order is refused and changes nothing; so is a new order for groups with filters of their own', async () => {
      const p = uid();
      await createTargets(app, p, 4);
      const r = await rollout(p, { order: 'random', seed: 9 });
      const before = await groupsOf(r.id);
      expectError(await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'alphabetical' } } }), 400, RELEASE_INVALID, 'order');
      expectError(await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { groupOrder: { order: 'spread', seed: 1 } } }), 400, RELEASE_INVALID, 'attribute');
      expect((await getRollout(app, r.id)).groupOrder).toEqual({ order: 'random', seed: 9 });
      expect(await groupsOf(r.id)).toEqual(before);
      const filtered = await createRollout(app, {
        name: uid('order'), targetFilterQuery: fleet(p), distributionSetId: ds,
        groups: [{ name: 'one', targetPercentage: 50, targetFilterQuery: 'name==*' }, { name: 'two', targetPercentage: 100 }],
      });
      await app.pass(T0);
      expectError(await app.mgmt.put(`${ROLLOUTS}/${filtered.id}`, { json: { groupOrder: { order: 'random', seed: 1 } } }), 400, RELEASE_INVALID, 'targetFilterQuery');
      expect((await getRollout(app, filtered.id)).groupOrder).toBeUndefined();
    });
  });

  describe('window and endAt', () => {
    const HOUR = 3_600_000;

    it('actions are released only inside a window, read in its time zone; a ramp waits outside it', async () => {
      // 03:00 in Berlin (UTC+1 in January) is 02:00 UTC; one minute long
      const window = [{ cron: '0 3 * * *', durationMinutes: 1, timezone: 'Europe/Berlin' }];
      const { id, created } = await started(4, { window, ramp: { maxPerMinute: 60 } });
      expect(created.window).toEqual(window);
      const runningAt = async (at: number): Promise<number> => {
        await app.pass(at);
        return (await perStatus(id)).running as number;
      };
      expect(await runningAt(T0)).toBe(0); // started at midnight UTC: outside
      expect(await runningAt(T0 + HOUR + 30 * 60_000)).toBe(0); // 02:30 Berlin
      expect(await runningAt(T0 + 2 * HOUR)).toBe(1); // 03:00 Berlin: the window opens
      expect(await runningAt(T0 + 2 * HOUR + 1_000)).toBe(2);
      expect(await runningAt(T0 + 2 * HOUR + 60_000)).toBe(2); // closed again
      // the next day's window: the ramp's 2 s of catch-up (3 releases) covers the 2 left
      expect(await runningAt(T0 + 26 * HOUR)).toBe(4);
    });

    it('without a ramp a window releases a whole group at once when it opens', async () => {
      const { id } = await started(3, { window: [{ cron: '30 2 * * *', durationMinutes: 30 }] });
      expect(await perStatus(id)).toEqual(counts({ scheduled: 3 }));
      await app.pass(T0 + 2 * HOUR + 45 * 60_000);
      expect(await perStatus(id)).toEqual(counts({ running: 3 }));
    });

    it('endAt with stop: the rollout stops then, scheduled actions go, running ones are left to finish', async () => {
      const { id, devices } = await started(3, { maxInFlight: 1, endAt: T0 + HOUR });
      expect(await perStatus(id)).toEqual(counts({ running: 1, scheduled: 2 }));
      await app.pass(T0 + HOUR - 1);
      expect((await getRollout(app, id)).status).toBe('running');
      await app.pass(T0 + HOUR);
      await app.pass(T0 + HOUR);
      const r = await getRollout(app, id);
      expect(r).toMatchObject({ status: 'stopped', endAt: T0 + HOUR });
      expect(r.totalTargetsPerStatus).toEqual(counts({ running: 1, notstarted: 2 }));
      await runDevice(app, devices[0] as string, 'success');
      expect(await perStatus(id)).toEqual(counts({ finished: 1, notstarted: 2 }));
    });

    it('endAt with cancel: the running actions are canceled', async () => {
      const { id, devices } = await started(2, { maxInFlight: 1, endAt: T0 + HOUR, endBehaviour: 'cancel' });
      await app.pass(T0 + HOUR);
      await app.pass(T0 + HOUR);
      expect((await getRollout(app, id)).status).toBe('stopped');
      const poll = await app.device(devices[0] as string).poll();
      expect(poll._links.cancelAction).toBeDefined();
    });

    it.each([
      ['an invalid cron', { window: [{ cron: '61 * * * *', durationMinutes: 5 }] }, 'cron'],
      ['a cron of 6 fields', { window: [{ cron: '0 0 2 * * *', durationMinutes: 5 }] }, 'cron'],
      ['a zero duration', { window: [{ cron: '0 2 * * *', durationMinutes: 0 }] }, 'durationMinutes'],
      ['an unknown time zone', { window: [{ cron: '0 2 * * *', durationMinutes: 5, timezone: 'Mars/Olympus' }] }, 'timezone'],
      ['endAt in the past', { endAt: Date.now() - 1_000 }, 'endAt'],
      ['endAt before startAt', { endAt: T0, startAt: T0 + 1 }, 'endAt'],
      ['endBehaviour without endAt', { endBehaviour: 'cancel' }, 'endBehaviour'],
      ['an unknown endBehaviour', { endAt: T0, endBehaviour: 'explode' }, 'endBehaviour'],
    ])('%s: 400 body.notReadable, nothing created', (_what, extra, mentions) => refusedWhole(extra, RELEASE_INVALID, mentions));
  });

  it('the engine remembers only the rollouts it works on: a stopped, deleted or paused one is forgotten (bounded memory)', async () => {
    const engine = app.engine();
    const p = uid();
    const devices = await createTargets(app, p, 3);
    const ids: number[] = [];
    for (const device of devices) {
      const r = await createRollout(app, {
        name: uid('mem'), targetFilterQuery: `controllerid==${device}`, distributionSetId: ds,
        actionTimeout: { inProgressMinutes: 60 }, retry: { failed: 1 },
      });
      ids.push(r.id);
    }
    await app.pass(T0);
    for (const id of ids) await op(app, id, 'start');
    await app.pass(T0);
    await app.pass(T0 + 1); // running: each one's actions read for timeouts and retries once
    const held = engine.remembered();
    expect(held).toBeGreaterThanOrEqual(3);
    const [stopped, deleted, paused] = ids as [number, number, number];
    await op(app, stopped, 'stop');
    expect((await app.mgmt.delete(`${ROLLOUTS}/${deleted}`)).status).toBe(204);
    await op(app, paused, 'pause');
    await app.pass(T0 + 2);
    await app.pass(T0 + 3);
    expect((await getRollout(app, stopped)).status).toBe('stopped');
    expect(engine.remembered()).toBe(held - 3);
    await op(app, paused, 'resume');
    await app.pass(T0 + 4);
    expect(engine.remembered()).toBe(held - 2);
  });

  it('a rollout without controls starts its whole group at once and its JSON has no control fields', async () => {
    const { id } = await started(3, {});
    expect(await perStatus(id)).toEqual(counts({ running: 3 }));
    const r = await getRollout(app, id);
    expect(r).not.toHaveProperty('maxInFlight');
    expect(r).not.toHaveProperty('ramp');
  });

  it('PUT sets the controls before the start and is refused after it', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await createRollout(app, { name: uid('put'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await app.pass(T0);
    const put = await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { maxInFlight: 1, ramp: { maxPerMinute: 30 } } });
    expect(put.status, put.text).toBe(200);
    expect(put.json()).toMatchObject({ maxInFlight: 1, ramp: { maxPerMinute: 30 } });
    expectError(await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { maxInFlight: 0 } }), 400, RELEASE_INVALID, 'maxInFlight');
    await op(app, r.id, 'start');
    await app.pass(T0);
    await app.pass(T0 + 10);
    expect(await perStatus(r.id)).toEqual(counts({ running: 1, scheduled: 1 }));
    const late = await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { maxInFlight: 5 } });
    expectError(late, 400, 'hawkbit.server.error.rollout.illegalState', 'release controls');
    expect((await getRollout(app, r.id)).maxInFlight).toBe(1);
  });

  it.each([
    ['maxInFlight 0', { maxInFlight: 0 }, 'maxInFlight'],
    ['maxInFlight -3', { maxInFlight: -3 }, 'maxInFlight'],
    ['maxPerMinute 0', { ramp: { maxPerMinute: 0 } }, 'maxPerMinute'],
    ['maxPerMinute -10', { ramp: { maxPerMinute: -10 } }, 'maxPerMinute'],
    ['both ramps', { ramp: { maxPerMinute: 10, exponential: { baseRatePerMinute: 1, incrementFactor: 2, increaseAfter: { notified: 1 } } } }, 'exactly one'],
    ['an empty ramp', { ramp: {} }, 'exactly one'],
    ['base rate 0', { ramp: { exponential: { baseRatePerMinute: 0, incrementFactor: 2, increaseAfter: { notified: 1 } } } }, 'baseRatePerMinute'],
    ['base rate 100001', { ramp: { exponential: { baseRatePerMinute: 100_001, incrementFactor: 2, increaseAfter: { notified: 1 } } } }, 'baseRatePerMinute'],
    ['factor 1.05', { ramp: { exponential: { baseRatePerMinute: 10, incrementFactor: 1.05, increaseAfter: { notified: 1 } } } }, 'incrementFactor'],
    ['factor 5.5', { ramp: { exponential: { baseRatePerMinute: 10, incrementFactor: 5.5, increaseAfter: { notified: 1 } } } }, 'incrementFactor'],
    ['no increaseAfter', { ramp: { exponential: { baseRatePerMinute: 10, incrementFactor: 2 } } }, 'increaseAfter'],
    ['increaseAfter 0', { ramp: { exponential: { baseRatePerMinute: 10, incrementFactor: 2, increaseAfter: { succeeded: 0 } } } }, 'succeeded'],
  ])('%s: 400 body.notReadable, nothing created', (_what, extra, mentions) => refusedWhole(extra, RELEASE_INVALID, mentions));

  it('a ramp that is no number is an unreadable body', async () => {
    const res = await app.mgmt.post(ROLLOUTS, { json: { name: uid('bad'), targetFilterQuery: fleet('none'), distributionSetId: ds, ramp: { maxPerMinute: 'fast' } } });
    expectError(res, 400, 'hawkbit.server.error.rest.body.notReadable', 'maxPerMinute');
  });

  it('the OpenAPI document shows the controls in the create body, the update body and the reply', async () => {
    const doc = (await app.anon.get('/rest/v1/openapi.json')).json();
    const schemaOf = (s: Json): Json => (s?.$ref === undefined ? s : doc.components.schemas[s.$ref.split('/').pop()]);
    const body = (method: string): Json => schemaOf(doc.paths[method === 'post' ? ROLLOUTS : `${ROLLOUTS}/{rolloutId}`][method].requestBody.content['application/json'].schema);
    for (const method of ['post', 'put']) {
      expect(Object.keys(body(method).properties)).toEqual(expect.arrayContaining(['maxInFlight', 'ramp']));
      expect(JSON.stringify(body(method).properties.ramp)).toContain('baseRatePerMinute');
    }
    expect(Object.keys(doc.components.schemas.MgmtRolloutResponseBody.properties)).toEqual(expect.arrayContaining(['maxInFlight', 'ramp']));
  });

  it('the ramp survives a second instance taking over: its clock is in the rollout record', async () => {
    if (kind === 'memory') return; // one process holds the memory store
    const { id } = await started(6, { ramp: { maxPerMinute: 60 } });
    await app.pass(T0 + 100);
    const other = await startRolloutApp(kind, { manualEngine: true, sameAs: { tenant: app.tenant } });
    // the first instance's engine lease lapses (scheduler.rolloutLeaseMs, 5 s); then the second one takes the steps
    const engineSkipped = (s: readonly string[]): boolean => s.some((x) => x.startsWith('rollouts:'));
    await waitFor(async () => (await other.pass(T0 + 600)).skipped, (s) => !engineSkipped(s), { what: 'the engine lease', deadline: 20_000 });
    expect((await perStatus(id)).running).toBe(1); // not due yet on the first instance's clock
    await other.pass(T0 + 1_100);
    expect((await perStatus(id)).running).toBe(2);
  });
});
