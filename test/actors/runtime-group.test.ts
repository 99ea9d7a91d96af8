import { afterEach, describe, expect, inject, it } from 'vitest';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../src/domain/action.js';
import type { ActionEvent } from '../../src/domain/action.events.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { openStore } from '../../src/store/index.js';
import type { Store, Stored } from '../../src/store/port.js';
import { STORES } from '../helpers/app.js';
import { uniqueTenant } from '../helpers/redis.js';
import { anAction, aTarget } from '../fixtures/records.js';

const proceeding = (n: number): ActionEvent => ({ type: 'device.feedback', execution: 'proceeding', finished: 'none', at: n, timestamp: n, code: n, details: [`step ${n}`] });
const closedOk: ActionEvent = { type: 'device.feedback', execution: 'closed', finished: 'success', at: 5, timestamp: 5, code: null, details: [] };

/**
 * Group commit (SendOptions.group): sends that arrive together are committed in one store commit,
 * each keeping its own outcome. On the memory store, Redis and Redis Cluster.
 */
describe.each(STORES)('actor runtime (%s): grouped sends', (kind) => {
  const open: Store[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });

  /** `n` targets (ids 1..n), each with one running action (ids 101..100+n); counts the store's commits. */
  async function setUp(n: number) {
    const tenant = uniqueTenant('group');
    const store = await openStore({
      kind: kind === 'memory' ? 'memory' : 'redis', schema: SCHEMA,
      ...(kind === 'redis' ? { redisUrl: inject('redisUrl') } : kind === 'cluster' ? { redisCluster: inject('redisClusterUrls') } : {}),
    });
    open.push(store);
    const runtime = new ActorRuntime(store, ACTORS);
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    expect((await runtime.create(tenant, TARGET, ids.map((id) => aTarget({ id, controllerId: `dev-${id}`, updateStatus: 'pending', assignedDs: 7 })))).ok).toBe(true);
    expect((await runtime.create(tenant, ACTION, ids.map((id) => anAction({ id: 100 + id, targetId: id, controllerId: `dev-${id}`, ds: 7 })))).ok).toBe(true);
    const commits = { n: 0 };
    const commit = store.commit.bind(store);
    store.commit = (t, c) => {
      commits.n++;
      return commit(t, c);
    };
    const read = async (id: number) => (await store.get<ActionRecord>(tenant, ACTION, id))!;
    const grouped = (action: Stored<ActionRecord>, event: ActionEvent) =>
      runtime.send(tenant, ACTION, action.id, event, { known: action, group: true });
    /** A grouped known-only send whose effects tell the action's target what is next once it closed. */
    const onKnown = (action: Stored<ActionRecord>, event: ActionEvent) => runtime.send(tenant, ACTION, action.id, event, {
      known: action, knownOnly: true, group: true, effects: (next) => (next.active ? [] : [{ type: 'dmf.next', targetId: next.targetId }]),
    });
    const queued = async () =>
      (await store.readEffects([tenant], { consumer: 'c', count: 100, blockMs: 0, reclaimIdleMs: 60_000 })).map((q) => q.effect);
    return { tenant, store, runtime, ids, commits, read, grouped, onKnown, queued };
  }

  it('concurrent reports for different actions all land, in one commit', async () => {
    const { tenant, store, ids, commits, read, grouped } = await setUp(30);
    const known = await Promise.all(ids.map((id) => read(100 + id)));
    commits.n = 0;
    const results = await Promise.all(known.map((a, i) => grouped(a, proceeding(i))));
    expect(results.map((r) => r.kind)).toEqual(ids.map(() => 'committed'));
    expect(commits.n).toBe(1);
    for (const r of results) if (r.kind === 'committed') expect(r.version).toBe(2);
    for (const id of ids) {
      const a = await read(100 + id);
      expect(a.version).toBe(2);
      expect(a.value.entries).toBe(2);
      expect(await store.count(tenant, ACTION_STATUS, 'action', String(100 + id))).toBe(1);
    }
  });

  it('a final report follows its target in the group; two actions of one target: the second goes on after the group', async () => {
    const { tenant, store, runtime, ids, read, grouped } = await setUp(3);
    // a second action of target 1 (as a second assignment would leave it): both end in one turn
    expect((await runtime.create(tenant, ACTION, anAction({ id: 200, targetId: 1, controllerId: 'dev-1', ds: 7 }))).ok).toBe(true);
    const known = await Promise.all([...ids.map((id) => read(100 + id)), read(200)]);
    const results = await Promise.all(known.map((a) => grouped(a, closedOk)));
    expect(results.map((r) => r.kind)).toEqual(known.map(() => 'committed'));
    for (const id of ids) expect((await store.get<TargetRecord>(tenant, TARGET, id))?.value.updateStatus).toBe('in_sync');
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.version).toBe(3);
  });

  it('a stale record and an ignored event among good ones each get their own outcome', async () => {
    const { ids, commits, read, grouped, runtime, tenant } = await setUp(6);
    const known = await Promise.all(ids.map((id) => read(100 + id)));
    // action 101 changes after it was read; action 102 is finished, so a proceeding report changes nothing
    expect((await runtime.send(tenant, ACTION, 101, proceeding(100))).kind).toBe('committed');
    expect((await runtime.send(tenant, ACTION, 102, closedOk)).kind).toBe('committed');
    commits.n = 0;
    const results = await Promise.all(known.map((a, i) => grouped(a, proceeding(i))));
    expect(results.map((r) => r.kind)).toEqual(['committed', 'ignored', 'committed', 'committed', 'committed', 'committed']);
    const first = await read(101);
    expect(first.version).toBe(3);
    expect(first.value.entries).toBe(3);
    expect((await read(102)).value.status).toBe('finished');
    for (const id of [103, 104, 105, 106]) expect((await read(id)).version).toBe(2);
    // both were read before they changed: the group lost on one, then on the other, then committed the
    // other four (3 commits); 101 went on alone and committed (1), 102 alone read it finished (none)
    expect(commits.n).toBe(4);
  });

  it('two reports for one action, sent together, apply in order', async () => {
    const { tenant, store, read, grouped } = await setUp(2);
    const a = await read(101);
    const b = await read(102);
    const results = await Promise.all([grouped(a, proceeding(1)), grouped(a, proceeding(2)), grouped(b, proceeding(3))]);
    expect(results.map((r) => r.kind)).toEqual(['committed', 'committed', 'committed']);
    const action = await read(101);
    expect(action.version).toBe(3);
    expect(action.value.entries).toBe(3);
    const page = await store.members(tenant, ACTION_STATUS, 'action', '101', { offset: 0, limit: 10 });
    const entries = await store.getMany<{ code: number | null }>(tenant, ACTION_STATUS, page.ids);
    expect(entries.map((e) => e?.value.code)).toEqual([1, 2]);
  });

  it('a commit that fails fails its whole group and writes none of it; the next group goes on', async () => {
    const { read, grouped } = await setUp(4);
    const known = await Promise.all([101, 102, 103, 104].map(read));
    // a value without a JSON form makes the store refuse the whole commit
    const bad = { ...proceeding(9), details: [10n as unknown as string] };
    const failed = await Promise.allSettled([
      grouped(known[0]!, proceeding(1)), grouped(known[1]!, bad), grouped(known[2]!, proceeding(2)),
    ]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const id of [101, 102, 103]) expect((await read(id)).version).toBe(1);
    const next = await Promise.all([grouped(known[0]!, proceeding(1)), grouped(known[3]!, proceeding(4))]);
    expect(next.map((r) => r.kind)).toEqual(['committed', 'committed']);
    expect((await read(101)).version).toBe(2);
  });

  it('grouped sends with effects commit each send\'s effects in the one commit, as its effectIds', async () => {
    const { ids, commits, read, onKnown, queued } = await setUp(4);
    const known = await Promise.all(ids.map((id) => read(100 + id)));
    commits.n = 0;
    // two close (their effects say what is next), two go on (theirs say nothing)
    const results = await Promise.all(known.map((a, i) => onKnown(a, i < 2 ? closedOk : proceeding(i))));
    expect(results.map((r) => r.kind)).toEqual(['committed', 'committed', 'committed', 'committed']);
    expect(commits.n).toBe(1);
    const mine = results.map((r) => (r.kind === 'committed' ? r.effectIds : []));
    expect(mine.map((e) => e.length)).toEqual([1, 1, 0, 0]);
    const effects = await queued();
    for (const [i, targetId] of [1, 2].entries()) {
      expect(effects).toContainEqual(expect.objectContaining({ type: 'dmf.next', targetId, eid: mine[i]?.[0] }));
    }
  });

  it('known-only sends: a record that moved is answered stale and written nothing; the others commit together', async () => {
    const { tenant, ids, commits, read, onKnown, runtime, queued } = await setUp(5);
    const known = await Promise.all(ids.map((id) => read(100 + id)));
    // 101 moves on after it was read; 102 is finished, so a proceeding report changes nothing on its copy either way
    expect((await runtime.send(tenant, ACTION, 101, proceeding(100))).kind).toBe('committed');
    expect((await runtime.send(tenant, ACTION, 102, closedOk)).kind).toBe('committed');
    const before = (await queued()).length;
    commits.n = 0;
    const results = await Promise.all([
      onKnown(known[0]!, closedOk), onKnown(await read(102), proceeding(1)),
      ...known.slice(2).map((a, i) => onKnown(a, proceeding(i))),
    ]);
    expect(results.map((r) => r.kind)).toEqual(['stale', 'ignored', 'committed', 'committed', 'committed']);
    // one commit lost on 101 (answered stale, never read again nor retried), one committed the other three
    expect(commits.n).toBe(2);
    const first = await read(101);
    expect(first.version).toBe(2);
    expect(first.value).toMatchObject({ status: 'running', entries: 2 });
    for (const id of [103, 104, 105]) expect((await read(id)).version).toBe(2);
    expect((await queued()).length).toBe(before); // the stale send's effect was not committed
    // alone (no group) the same: stale on the old copy, committed on the fresh one
    const alone = (a: Stored<ActionRecord>) => runtime.send(tenant, ACTION, 101, closedOk, { known: a, knownOnly: true });
    expect((await alone(known[0]!)).kind).toBe('stale');
    expect((await alone(first)).kind).toBe('committed');
  });
});
