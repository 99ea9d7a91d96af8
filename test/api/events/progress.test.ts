/**
 * A rollout's stream shows its groups' action changes as `progress` events (one per group and read of
 * the journal, with the group's counts), while the tenant stream with kinds=action keeps one event per
 * action change; the counts are exact after a burst, and resuming from a progress event's id misses nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareJournalIds } from '../../../src/store/journal.js';
import { STORES } from '../../helpers/app.js';
import { basic, openSse, type SseEvent, type SseStream } from '../../helpers/sse.js';
import {
  ROLLOUTS, createSet, createTargets, fleet, getGroups, groupTargets, op, readyRollout, runDevice, startRolloutApp, uid,
  type Json, type RolloutApp,
} from '../rollouts/fixture.js';

const ADMIN = basic('admin', 'admin');
const TARGETS = 30;

describe.each(STORES)('rollout progress events on the %s store', (kind) => {
  let app: RolloutApp;
  let rollout: Json;
  let group: number;
  const open: SseStream[] = [];
  const sse = async (path: string, headers: Record<string, string> = ADMIN): Promise<SseStream> => {
    const s = await openSse(app.url + path, headers);
    open.push(s);
    return s;
  };
  const progressOf = (s: SseStream): SseEvent[] => s.events.filter((e) => e.event === 'progress' && e.data.groupId === group);
  const restCounts = async (): Promise<Json> => (await getGroups(app, rollout.id)).find((g) => g.id === group).totalTargetsPerStatus;

  beforeAll(async () => {
    app = await startRolloutApp(kind);
    const ds = (await createSet(app)).id;
    const prefix = uid('pg');
    await createTargets(app, prefix, TARGETS);
    rollout = await readyRollout(app, { name: uid('progress'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 1 });
  });
  afterAll(() => {
    for (const s of open) s.close();
  });

  it("coalesces a group start into progress events whose counts match the group's, while kinds=action has every change", async () => {
    const s = await sse(`${ROLLOUTS}/${rollout.id}/events`);
    const actions = await sse('/rest/v1/events?kinds=action');
    const snapshot = await s.next((e) => e.event === 'snapshot');
    group = snapshot.data.groups[0].id;
    await actions.next((e) => e.event === 'snapshot');

    await op(app, rollout.id, 'start');
    const mine = (): SseEvent[] => actions.events.filter((e) => e.event === 'action' && e.data.rolloutId === rollout.id);
    await vi.waitFor(() => expect(mine().filter((e) => e.data.status === 'running')).toHaveLength(TARGETS), { timeout: 15_000, interval: 20 });
    // every action change of the tenant stream is counted in exactly one progress event
    const counted = (): number => progressOf(s).reduce((n, e) => n + e.data.changes, 0);
    await vi.waitFor(() => expect(counted()).toBe(mine().length), { timeout: 15_000, interval: 20 });
    const progress = progressOf(s);
    expect(progress.length).toBeLessThan(mine().length);
    expect(progress.some((e) => e.data.changes > 1)).toBe(true);
    expect(progress.at(-1)?.data).toMatchObject({ kind: 'progress', rolloutId: rollout.id, groupId: group, totalTargets: TARGETS });
    expect(progress.at(-1)?.data.totalTargetsPerStatus).toEqual(await restCounts());
    expect(progress.at(-1)?.data.totalTargetsPerStatus).toMatchObject({ running: TARGETS, notstarted: 0 });
    // no action event for a grouped action on the rollout's stream; every message of it carries a resumable id
    expect(s.events.filter((e) => e.event === 'action')).toEqual([]);
    const ids = s.events.map((e) => e.id);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    for (let i = 1; i < ids.length; i++) expect(compareJournalIds(ids[i]!, ids[i - 1]!)).toBeGreaterThan(0);
    s.close();
  });

  it("resumes from a progress event's id without a snapshot and with the changes made meanwhile", async () => {
    const s = await sse(`${ROLLOUTS}/${rollout.id}/events`);
    await s.next((e) => e.event === 'snapshot');
    const [a, b, c] = await groupTargets(app, rollout.id, group);
    await runDevice(app, a!, 'success');
    const seen = await s.next((e) => e.event === 'progress' && e.data.totalTargetsPerStatus.finished === 1, 15_000, 'one finished');
    s.close();

    await runDevice(app, b!, 'success');
    await runDevice(app, c!, 'failure');
    const resumed = await sse(`${ROLLOUTS}/${rollout.id}/events`, { ...ADMIN, 'last-event-id': seen.id! });
    const meanwhile = (e: SseEvent): boolean =>
      e.event === 'progress' && e.data.totalTargetsPerStatus.finished === 2 && e.data.totalTargetsPerStatus.error === 1;
    const last = await resumed.next(meanwhile, 15_000, 'the changes made while away');
    expect(resumed.events.some((e) => e.event === 'snapshot')).toBe(false);
    expect(resumed.events.every((e) => compareJournalIds(e.id!, seen.id!) > 0)).toBe(true);
    expect(last.data.totalTargetsPerStatus).toEqual(await restCounts());
    expect(last.data.totalTargetsPerStatus).toMatchObject({ finished: 2, error: 1, running: TARGETS - 3 });
  });
});
