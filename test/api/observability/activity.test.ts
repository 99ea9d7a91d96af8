/**
 * The server says what it does (issue 26 item 9): at `info`, one JSON line per rollout and group status
 * change (the reason of a pause or stop with it), per assignment batch and per action that ends in
 * error (with the device's last message); and /metrics counts rollouts and actions by status, finished
 * and failed updates, DDI feedback and the poll lane's hits and misses, once the devices reported.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/observability/logger.js';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  createSet, createTargets, fleet, groupTargets, op, openAction, runDevice, runningRollout, startRolloutApp, uid, waitGroups, waitStatus,
  type RolloutApp,
} from '../rollouts/fixture.js';

const LONG = 60_000;
type Line = Record<string, unknown>;

/** The value of the series `name{labels}` in a scrape, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe.each(LOCAL_STORES)('activity log and metrics on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  const lines: Line[] = [];
  beforeAll(async () => {
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    app = await startRolloutApp(kind, { logger });
    ds = (await createSet(app)).id;
  });
  const of = (activity: string, match: Line): Line[] =>
    lines.filter((l) => l['activity'] === activity && Object.entries(match).every(([k, v]) => l[k] === v));
  const waitLine = (activity: string, match: Line): Promise<Line> => vi.waitFor(() => {
    const found = of(activity, match);
    expect(found, `${activity} ${JSON.stringify(match)} in ${JSON.stringify(lines.filter((l) => l['activity'] !== undefined))}`).toHaveLength(1);
    return found[0] as Line;
  }, { timeout: 15_000, interval: 50 });

  it('logs each rollout and group transition once, the error threshold that paused it, the failed action and the stop', async () => {
    const p = uid();
    await createTargets(app, p, 4);
    const name = uid('logged');
    const r = await runningRollout(app, {
      name, targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, errorCondition: { condition: 'THRESHOLD', expression: '0' },
    });
    const [g1, g2] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [failing, succeeding] = await groupTargets(app, r.id, g1.id);
    const actionId = await openAction(app, failing!);
    const dev = app.device(failing!);
    expect((await dev.get(`/deploymentBase/${actionId}`)).status).toBe(200);
    const fb = await dev.post(`/deploymentBase/${actionId}/feedback`, {
      status: { execution: 'closed', result: { finished: 'failure' }, details: ['downloading', 'disk full: 12 MB free'] },
    });
    expect(fb.status, fb.text).toBe(200);
    await waitStatus(app, r.id, 'paused');
    await runDevice(app, succeeding!, 'success');

    const paused = await waitLine('rollout', { rolloutId: r.id, from: 'running', to: 'paused' });
    expect(paused).toMatchObject({ level: 30, rollout: name, tenant: app.tenant, by: 'system' });
    expect(paused['reason']).toBe(`group ${g1.id} '${g1.name}': 1 of 2 actions in error, over the error threshold of 0%`);
    const failed = await waitLine('rollout.group', { groupId: g1.id, to: 'error' });
    expect(failed).toMatchObject({ rolloutId: r.id, from: 'running', reason: '1 of 2 actions in error, over the error threshold of 0%' });
    const error = await waitLine('action.error', { actionId });
    expect(error).toMatchObject({ controllerId: failing, rolloutId: r.id, groupId: g1.id, lastMessage: 'disk full: 12 MB free', level: 30 });
    expect(of('action.error', { controllerId: succeeding })).toEqual([]);

    await op(app, r.id, 'stop');
    await waitStatus(app, r.id, 'stopped');
    expect(await waitLine('rollout', { rolloutId: r.id, from: 'paused', to: 'stopping' })).toMatchObject({ reason: 'stopped by admin', by: 'admin' });
    await waitLine('rollout', { rolloutId: r.id, from: 'stopping', to: 'stopped' });
    // the whole path, one line per change and none twice
    const path = of('rollout', { rolloutId: r.id }).map((l) => `${String(l['from'])}>${String(l['to'])}`);
    expect(path).toEqual(['null>creating', 'creating>ready', 'ready>starting', 'starting>running', 'running>paused', 'paused>stopping', 'stopping>stopped']);
    const g2path = of('rollout.group', { groupId: g2.id }).map((l) => `${String(l['from'])}>${String(l['to'])}`);
    expect(g2path).toEqual(['null>creating', 'creating>ready', 'ready>scheduled', 'scheduled>finished']);
  }, LONG);

  it('logs a Management assignment as one batch line per set', async () => {
    const p = uid('asg');
    const cids = await createTargets(app, p, 3);
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds}/assignedTargets`, { json: cids.map((id) => ({ id, type: 'soft' })) });
    expect(res.status, res.text).toBe(200);
    const line = await waitLine('assignment', { dsId: ds, targets: 3 });
    expect(line).toMatchObject({ source: 'management', assigned: 3, actionType: 'soft', by: 'admin', offline: false, tenant: app.tenant, level: 30 });
    expect(String(line['msg'])).toBe(`set ${ds} assigned to 3 of 3 targets (soft) by admin`);
  });

  it('logs an auto-assignment pass of a target filter as one batch line', async () => {
    const p = uid('auto');
    await createTargets(app, p, 2);
    const filter = await app.mgmt.post('/rest/v1/targetfilters', { json: { name: p, query: fleet(p) } });
    expect(filter.status, filter.text).toBe(201);
    const set = await app.mgmt.post(`/rest/v1/targetfilters/${filter.json().id}/autoAssignDS`, { json: { id: ds, type: 'forced' } });
    expect(set.status, set.text).toBe(200);
    const line = await waitLine('assignment', { source: 'auto-assignment', filterId: filter.json().id });
    expect(line).toMatchObject({ dsId: ds, targets: 2, assigned: 2, actionType: 'forced', by: 'admin', tenant: app.tenant });
  });

  it('/metrics counts rollouts and actions by status, finished and failed updates, feedback and the lane', async () => {
    const p = uid('met');
    const [ok, bad] = await createTargets(app, p, 2);
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds}/assignedTargets`, { json: [{ id: ok }, { id: bad }] });
    expect(res.status, res.text).toBe(200);
    const before = (await app.anon.get('/metrics')).text;
    await runDevice(app, ok!, 'success');
    await runDevice(app, bad!, 'failure');
    // the steady poll: the lane answers it once the first (generic) poll left its memo
    await vi.waitFor(async () => {
      await app.device(ok!).poll();
      expect(sample((await app.anon.get('/metrics')).text, 'http_express_lane_requests_total{route="ddi GET /"}')).toBeGreaterThan(0);
    }, { timeout: 5000, interval: 20 });
    const text = (await app.anon.get('/metrics')).text;
    const grew = (series: string): number => sample(text, series) - sample(before, series);
    expect(grew('updates_finished_total')).toBeGreaterThanOrEqual(1);
    expect(grew('updates_failed_total')).toBeGreaterThanOrEqual(1);
    expect(grew('actions_status_changes_total{status="finished"}')).toBeGreaterThanOrEqual(1);
    expect(grew('ddi_feedback_total{kind="deployment",execution="closed"}')).toBe(2);
    expect(sample(text, 'http_express_lane_misses_total{route="ddi GET /"}')).toBeGreaterThan(0);
    // gauges read from the store: this server's tenant only (the first test left a stopped rollout)
    expect(sample(text, 'rollouts_by_status{status="stopped"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'actions_by_status{status="error"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'actions_by_status{status="finished"}')).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^# TYPE rollouts_by_status gauge$/m);
  }, LONG);
});

describe('two server instances on one Redis', () => {
  it('write each transition line once between them: the instance whose commit made the change', async () => {
    const logs: Line[][] = [[], []];
    const logger = (i: number) => createLogger('info', { write: (line: string) => void logs[i]!.push(JSON.parse(line) as Line) });
    const first = await startRolloutApp('redis', { logger: logger(0) });
    const second = await startRolloutApp('redis', { sameAs: { tenant: first.tenant }, logger: logger(1) });
    const ds = (await createSet(first)).id;
    const p = uid('two');
    await createTargets(first, p, 4);
    const r = await runningRollout(first, {
      name: uid('twice'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    const [g1, g2] = await waitGroups(first, r.id, ['running', 'scheduled']);
    // devices report to either instance
    for (const [i, cid] of (await groupTargets(first, r.id, g1.id)).entries()) await runDevice(i % 2 === 0 ? first : second, cid, 'success');
    await waitGroups(first, r.id, ['finished', 'running']);
    for (const [i, cid] of (await groupTargets(first, r.id, g2.id)).entries()) await runDevice(i % 2 === 0 ? second : first, cid, 'success');
    await waitStatus(first, r.id, 'finished');
    const all = (): Line[] => [...logs[0]!, ...logs[1]!];
    const path = (match: Line): string[] => all()
      .filter((l) => Object.entries(match).every(([k, v]) => l[k] === v))
      .map((l) => `${String(l['from'])}>${String(l['to'])}`);
    await vi.waitFor(() => expect(path({ activity: 'rollout', rolloutId: r.id })).toContain('running>finished'), { timeout: 15_000, interval: 50 });
    expect(path({ activity: 'rollout', rolloutId: r.id }).sort()).toEqual(
      ['null>creating', 'creating>ready', 'ready>starting', 'starting>running', 'running>finished'].sort(),
    );
    for (const g of [g1, g2]) {
      await vi.waitFor(() => expect(path({ activity: 'rollout.group', groupId: g.id })).toContain('running>finished'), { timeout: 15_000, interval: 50 });
      expect(path({ activity: 'rollout.group', groupId: g.id }).sort())
        .toEqual(['null>creating', 'creating>ready', 'ready>scheduled', 'scheduled>running', 'running>finished'].sort());
    }
  }, LONG);
});
