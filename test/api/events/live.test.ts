/**
 * Live events (issue 22): Server-Sent Events and WebSocket messages from the store's journal, on every
 * store (a Redis Cluster too): a snapshot on connect, then a rollout's changes as its devices report
 * (its groups' action changes as progress events);
 * resuming with Last-Event-ID; a second server instance sees the first one's changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'undici';
import { compareJournalIds } from '../../../src/store/journal.js';
import { STORES } from '../../helpers/app.js';
import { basic, openSse, type SseEvent, type SseStream } from '../../helpers/sse.js';
import {
  ROLLOUTS, createSet, createTargets, fleet, groupTargets, op, readyRollout, runDevice, startRolloutApp, uid, type Json, type RolloutApp,
} from '../rollouts/fixture.js';

const ADMIN = basic('admin', 'admin');
const is = (event: string, check: (data: Json) => boolean = () => true) => (e: SseEvent): boolean => e.event === event && check(e.data);

describe.each(STORES)('live events on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  const open: SseStream[] = [];
  const sse = async (path: string, headers: Record<string, string> = ADMIN): Promise<SseStream> => {
    const s = await openSse(app.url + path, headers);
    open.push(s);
    return s;
  };
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  afterAll(() => {
    for (const s of open) s.close();
  });

  it("streams a rollout's snapshot, then its rollout, group and action changes as devices report", async () => {
    const prefix = uid('ev');
    await createTargets(app, prefix, 4);
    const rollout = await readyRollout(app, { name: uid('live'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 2 });
    const s = await sse(`${ROLLOUTS}/${rollout.id}/events`);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toContain('text/event-stream');
    const snapshot = await s.next(is('snapshot'));
    expect(snapshot.id).toMatch(/^\d+-\d+$/);
    expect(snapshot.data.rollout).toMatchObject({ id: rollout.id, status: 'ready', totalTargets: 4 });
    expect(snapshot.data.groups.map((g: Json) => g.status)).toEqual(['ready', 'ready']);

    await op(app, rollout.id, 'start');
    await s.next(is('rollout', (d) => d.rolloutId === rollout.id && d.status === 'running'), 15_000, 'the rollout running');
    const first = snapshot.data.groups[0].id;
    await s.next(is('group', (d) => d.groupId === first && d.status === 'running'), 15_000, 'the first group running');
    // the group's action changes come as progress events with its counts (progress.test.ts)
    let finished = 0;
    for (const controllerId of await groupTargets(app, rollout.id, first)) {
      await runDevice(app, controllerId, 'success');
      finished++;
      const done = await s.next(is('progress', (d) => d.groupId === first && d.totalTargetsPerStatus.finished === finished), 15_000, `${finished} finished`);
      expect(done.data).toMatchObject({ kind: 'progress', rolloutId: rollout.id, groupId: first, totalTargets: 2 });
    }
    await s.next(is('group', (d) => d.groupId === first && d.status === 'finished'), 15_000, 'the first group finished');
    // only this rollout's events, ids increasing
    expect(s.events.every((e) => ['snapshot', 'rollout', 'group', 'progress'].includes(e.event))).toBe(true);
    expect(s.events.filter((e) => e.event !== 'snapshot').every((e) => e.data.rolloutId === rollout.id)).toBe(true);
    const ids = s.events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
    for (let i = 1; i < ids.length; i++) expect(compareJournalIds(ids[i]!, ids[i - 1]!), ids.join(' ')).toBeGreaterThan(0);
  });

  it("streams the tenant's target changes by kind, and resumes after Last-Event-ID without a snapshot", async () => {
    const s = await sse('/rest/v1/events?kinds=target');
    const snapshot = await s.next(is('snapshot'));
    expect(snapshot.data.targets.byUpdateStatus).toHaveProperty('in_sync');
    expect(snapshot.data.rollouts).toBeUndefined();
    const prefix = uid('tg');
    const [one] = await createTargets(app, prefix, 1);
    const created = await s.next(is('target', (d) => d.controllerId === one), 10_000, 'the new target');
    expect(created.data).toMatchObject({ kind: 'target', updateStatus: 'unknown' });
    expect(created.id).toMatch(/^\d+-\d+$/);
    s.close();

    const [two] = await createTargets(app, `${prefix}-b`, 1);
    const resumed = await sse('/rest/v1/events?kinds=target', { ...ADMIN, 'last-event-id': created.id! });
    const next = await resumed.next(is('target', (d) => d.controllerId === two), 10_000, 'the target made while away');
    expect(resumed.events[0]).toBe(next); // no snapshot first: nothing was missed
    // an id this journal never reached starts afresh
    const future = await sse('/rest/v1/events?kinds=target', { ...ADMIN, 'last-event-id': '99999999999999-0' });
    await future.next(is('snapshot'));
  });

  it('carries the same stream over a WebSocket', async () => {
    const prefix = uid('ws');
    await createTargets(app, prefix, 2);
    const rollout = await readyRollout(app, { name: uid('ws'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 1 });
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/rest/v1/ws?rollout=${rollout.id}`, { headers: ADMIN });
    const messages: Json[] = [];
    const waitFor = (match: (m: Json) => boolean, what: string) => new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what}; got ${JSON.stringify(messages)}`)), 15_000);
      const check = (): void => {
        const m = messages.find(match);
        if (m !== undefined) {
          clearTimeout(timer);
          resolve(m);
        }
      };
      ws.addEventListener('message', check);
      check();
    });
    // each WebSocket message is one batch: an array of {id?, event, data}
    ws.addEventListener('message', (e) => {
      const batch = JSON.parse(String(e.data)) as Json[];
      expect(Array.isArray(batch)).toBe(true);
      messages.push(...batch);
    });
    try {
      const snapshot = await waitFor((m) => m.event === 'snapshot', 'snapshot');
      expect(snapshot.data.rollout.id).toBe(rollout.id);
      expect(snapshot.id).toMatch(/^\d+-\d+$/);
      await op(app, rollout.id, 'start');
      const running = await waitFor((m) => m.event === 'rollout' && m.data.status === 'running', 'the rollout running');
      expect(running.data).toMatchObject({ kind: 'rollout', rolloutId: rollout.id });
    } finally {
      ws.close();
    }
  });

  // one process holds the memory store: a second instance needs Redis
  it.skipIf(kind === 'memory')('a second server instance streams what the first one changes', async () => {
    const other = await startRolloutApp(kind, { sameAs: { tenant: app.tenant } });
    const s = await openSse(`${other.url}/rest/v1/events?kinds=target`, ADMIN);
    open.push(s);
    await s.next(is('snapshot'));
    const [made] = await createTargets(app, uid('far'), 1);
    await s.next(is('target', (d) => d.controllerId === made), 10_000, 'the target made through the other instance');
  });
});
