import { describe, expect, it } from 'vitest';
import type { ActionEvent } from '../../../src/domain/action.events.js';
import { actionMachine } from '../../../src/domain/action.machine.js';
import type { ActionRecord, ActionStatus } from '../../../src/domain/action.js';
import { anAction } from '../../fixtures/records.js';
import { step } from '../../../src/actors/step.js';

const run = (a: ActionRecord, e: ActionEvent) => step(actionMachine, 'status', a, e);
const report = { at: 100, timestamp: 90, code: null as number | null, details: [] as string[] };
const fb = (execution: string, finished: string, extra: Partial<typeof report> = {}) =>
  ({ type: 'device.feedback', execution, finished, ...report, ...extra }) as ActionEvent;
const cfb = (execution: string, finished: string) => ({ type: 'device.cancelFeedback', execution, finished, ...report }) as ActionEvent;

describe('action machine: deployment feedback (reference §1.5)', () => {
  it.each<[string, string, ActionStatus, ActionStatus]>([
    ['closed', 'success', 'finished', 'finished'],
    ['closed', 'none', 'finished', 'finished'],
    ['closed', 'failure', 'error', 'error'],
    ['proceeding', 'none', 'running', 'running'],
    ['scheduled', 'none', 'running', 'running'],
    ['resumed', 'none', 'running', 'running'],
    ['download', 'none', 'running', 'download'],
    ['downloaded', 'none', 'running', 'downloaded'],
    ['canceled', 'none', 'running', 'canceled'],
    ['rejected', 'none', 'running', 'warning'],
  ])('%s/%s on a running forced action -> status %s, history entry %s', (execution, finished, status, entry) => {
    const r = run(anAction(), fb(execution, finished));
    expect(r.state).toBe(status);
    expect(r.entries.map((e) => e.type)).toEqual([entry]);
  });

  it('downloaded closes a download-only action (DOWNLOADED) and tells the target', () => {
    const r = run(anAction({ actionType: 'downloadonly' }), fb('downloaded', 'none'));
    expect(r.state).toBe('downloaded');
    expect(r.effects).toEqual([{ type: 'send', to: { kind: 'target', id: 1 }, event: { type: 'action.downloaded', ds: 7, at: 100 } }]);
  });

  it('a downloaded download-only action takes one final report (the DMF path), installing or failing', () => {
    const done = anAction({ actionType: 'downloadonly', status: 'downloaded', active: false });
    const ok = run(done, fb('closed', 'success'));
    expect(ok.state).toBe('finished');
    expect(ok.effects).toEqual([{ type: 'send', to: { kind: 'target', id: 1 }, event: { type: 'action.finished', ds: 7, action: 10, at: 100, reportedAt: 90, downloadOnly: true } }]);
    expect(run(done, fb('closed', 'failure')).state).toBe('error');
    expect(run(done, fb('proceeding', 'none')).changed).toBe(false);
  });

  it('closed/success tells the target with the device timestamp as installation time', () => {
    const r = run(anAction(), fb('closed', 'success'));
    expect(r.effects).toEqual([{
      type: 'send', to: { kind: 'target', id: 1 },
      event: { type: 'action.finished', ds: 7, action: 10, at: 100, reportedAt: 90, downloadOnly: false },
    }]);
  });

  it('closed/failure tells the target it failed', () => {
    const r = run(anAction({ status: 'retrieved' }), fb('closed', 'failure'));
    expect(r.effects).toEqual([{ type: 'send', to: { kind: 'target', id: 1 }, event: { type: 'action.failed', ds: 7, at: 100 } }]);
  });

  it('details become messages, the code is kept and appended as a message', () => {
    const r = run(anAction(), fb('proceeding', 'none', { code: 42, details: ['step 1', 'step 2'] }));
    expect(r.entries[0]).toMatchObject({ messages: ['step 1', 'step 2', 'Device reported status code: 42'], code: 42 });
    expect(r.record.lastStatusCode).toBe(42);
  });

  it('a report without details gets a server message', () => {
    const r = run(anAction(), fb('closed', 'success'));
    expect(r.entries[0]?.messages).toEqual(['Update Server: Target reported CLOSED with OK!']);
  });

  it('counts entries for the status-entry quota', () => {
    const r = run(anAction({ entries: 4 }), fb('proceeding', 'none'));
    expect(r.record.entries).toBe(5);
    expect(r.record.lastEntry).toBe('running');
  });

  it.each<ActionStatus>(['finished', 'error', 'canceled', 'downloaded'])('a closed action (%s) takes no feedback', (s) => {
    const r = run(anAction({ status: s, active: false }), fb('closed', 'success'));
    expect(r.changed).toBe(false);
  });
});

describe('action machine: retrieval', () => {
  it('the first deploymentBase fetch marks the action retrieved', () => {
    const r = run(anAction(), { type: 'device.retrieved', at: 5 });
    expect(r.state).toBe('retrieved');
    expect(r.entries[0]?.type).toBe('retrieved');
  });
  it('fetching again after other reports records another retrieval, staying retrieved', () => {
    const r = run(anAction({ status: 'retrieved', lastEntry: 'running' }), { type: 'device.retrieved', at: 7 });
    expect(r.state).toBe('retrieved');
    expect(r.entries.map((e) => e.type)).toEqual(['retrieved']);
  });
  it('fetching again adds no second entry', () => {
    const r = run(anAction({ status: 'retrieved', lastEntry: 'retrieved' }), { type: 'device.retrieved', at: 6 });
    expect(r.changed).toBe(false);
  });
  it('fetching a canceling action adds an entry but keeps it canceling', () => {
    const r = run(anAction({ status: 'canceling', lastEntry: 'canceling' }), { type: 'device.retrieved', at: 6 });
    expect(r.state).toBe('canceling');
    expect(r.entries.map((e) => e.type)).toEqual(['retrieved']);
  });
  it('a full artifact download is logged as a DOWNLOAD entry without changing the status', () => {
    const r = run(anAction({ status: 'retrieved' }), { type: 'device.downloading', at: 6, uri: 'http://h/a.bin' });
    expect(r.state).toBe('retrieved');
    expect(r.entries[0]).toMatchObject({ type: 'download', messages: ['Update Server: Target downloads http://h/a.bin'] });
  });
  it('a download repeated with nothing recorded since adds no entry; another file, or one after another entry, does', () => {
    const download = (uri: string, at = 6): ActionEvent => ({ type: 'device.downloading', at, uri });
    const first = run(anAction({ status: 'retrieved' }), download('/t/a.bin'));
    expect(first.record).toMatchObject({ lastEntry: 'download', lastDownload: '/t/a.bin', entries: 2 });
    expect(run(first.record, download('/t/a.bin', 7)).changed).toBe(false);
    const other = run(first.record, download('/t/a.bin.MD5SUM', 7));
    expect(other.entries.map((e) => e.messages)).toEqual([['Update Server: Target downloads /t/a.bin.MD5SUM']]);
    expect(run(other.record, download('/t/a.bin', 8)).entries).toHaveLength(1);
    // a report in between: the next download of the same file is recorded again, and the report forgets the path
    const reported = run(first.record, fb('proceeding', 'none'));
    expect(reported.record.lastDownload).toBeUndefined();
    expect(run(reported.record, download('/t/a.bin', 8)).entries).toHaveLength(1);
    // the same on an action being cancelled
    const canceling = run(anAction({ status: 'canceling', lastEntry: 'download', lastDownload: '/t/a.bin' }), download('/t/a.bin'));
    expect(canceling.changed).toBe(false);
  });
});

describe('action machine: cancellation (reference §1.6, §4.2)', () => {
  it.each<ActionStatus>(['running', 'retrieved', 'wait_for_confirmation'])('cancel from %s -> canceling', (s) => {
    const r = run(anAction({ status: s }), { type: 'mgmt.cancel', at: 5, by: 'admin', reason: 'manual' });
    expect(r.state).toBe('canceling');
    expect(r.entries[0]).toMatchObject({ type: 'canceling', messages: ['Update Server: manual cancelation requested'] });
    expect(r.record.lastModifiedBy).toBe('admin');
  });
  it('cancel of a canceling action is not a transition (the handler answers 405)', () => {
    expect(run(anAction({ status: 'canceling' }), { type: 'mgmt.cancel', at: 5, by: 'a', reason: 'manual' }).changed).toBe(false);
  });
  it('autoclose closes the obsolete action at once and tells the target', () => {
    const r = run(anAction(), { type: 'mgmt.close', at: 5, by: 'admin' });
    expect(r.state).toBe('canceled');
    expect(r.effects).toEqual([{ type: 'target.actionCanceled', targetId: 1, actionId: 10, at: 5 }]);
  });
  it.each<[string, string, ActionStatus, ActionStatus]>([
    ['closed', 'success', 'canceled', 'canceled'],
    ['closed', 'none', 'canceled', 'canceled'],
    ['closed', 'failure', 'running', 'error'],
    ['rejected', 'none', 'running', 'cancel_rejected'],
    ['canceled', 'none', 'canceling', 'warning'],
    ['proceeding', 'none', 'canceling', 'running'],
  ])('cancel feedback %s/%s -> %s with entry %s', (execution, finished, status, entry) => {
    const r = run(anAction({ status: 'canceling' }), cfb(execution, finished));
    expect(r.state).toBe(status);
    expect(r.entries.map((e) => e.type)).toEqual([entry]);
  });
  it('an accepted cancel tells the target', () => {
    const r = run(anAction({ status: 'canceling' }), cfb('closed', 'success'));
    expect(r.effects).toEqual([{ type: 'target.actionCanceled', targetId: 1, actionId: 10, at: 100 }]);
  });
  it('force quit closes a canceling action', () => {
    const r = run(anAction({ status: 'canceling' }), { type: 'mgmt.forceQuit', at: 5, by: 'admin' });
    expect(r.state).toBe('canceled');
    expect(r.entries[0]?.messages).toEqual(['Update Server: A force quit has been performed.']);
  });
  it('force quit of a running action is not allowed (not a transition)', () => {
    expect(run(anAction(), { type: 'mgmt.forceQuit', at: 5, by: 'a' }).changed).toBe(false);
  });
  it('a device that finished the update while it was being canceled closes it as finished', () => {
    expect(run(anAction({ status: 'canceling' }), fb('closed', 'success')).state).toBe('finished');
  });
});

describe('action machine: confirmation (reference §1.7, §4.9)', () => {
  it('confirmed -> running', () => {
    const r = run(anAction({ status: 'wait_for_confirmation' }), { type: 'device.confirmed', ...report, code: 200, details: ['ok'] });
    expect(r.state).toBe('running');
    expect(r.entries[0]).toMatchObject({ type: 'running', code: 200 });
  });
  it('denied while waiting stays waiting with an entry', () => {
    const r = run(anAction({ status: 'wait_for_confirmation' }), { type: 'device.denied', ...report });
    expect(r.state).toBe('wait_for_confirmation');
    expect(r.entries[0]?.type).toBe('wait_for_confirmation');
  });
  it('activating auto-confirmation confirms a waiting action naming the initiator', () => {
    const r = run(anAction({ status: 'wait_for_confirmation' }), { type: 'autoconfirm.activated', at: 5, initiator: 'ops', remark: 'night' });
    expect(r.state).toBe('running');
    expect(r.entries[0]?.messages).toEqual(["Update Server: Action auto-confirmed by initiator 'ops'.", 'night']);
  });
  it('feedback is not accepted while waiting for confirmation', () => {
    expect(run(anAction({ status: 'wait_for_confirmation' }), fb('closed', 'success')).changed).toBe(false);
  });
});

describe('action machine: rollouts and forcing', () => {
  it('a scheduled action starts running when its group starts', () => {
    expect(run(anAction({ status: 'scheduled', active: false }), { type: 'group.started', at: 5, confirm: false }).state).toBe('running');
  });
  it('a scheduled action waits for confirmation when the group requires it', () => {
    expect(run(anAction({ status: 'scheduled', active: false }), { type: 'group.started', at: 5, confirm: true }).state).toBe('wait_for_confirmation');
  });
  it('a soft action can be forced', () => {
    const r = run(anAction({ actionType: 'soft' }), { type: 'mgmt.force', at: 5, by: 'admin' });
    expect(r.record.actionType).toBe('forced');
    expect(r.state).toBe('running');
  });
  it('forcing a forced action changes nothing', () => {
    expect(run(anAction({ actionType: 'forced' }), { type: 'mgmt.force', at: 5, by: 'admin' }).changed).toBe(false);
  });
});

describe('action machine: verifyInstall (install-check.ts)', () => {
  const verifyAction = anAction({ verifyInstall: true });
  const closed = run(verifyAction, fb('closed', 'success'));
  const waiting = closed.record;

  it('closed/success of a verifyInstall action: finished, verifying, the target told to wait for its confirmation', () => {
    expect(closed.state).toBe('finished');
    expect(waiting.verifying).toBe(true);
    expect(closed.effects).toEqual([{
      type: 'send', to: { kind: 'target', id: 1 },
      event: { type: 'action.finished', ds: 7, action: 10, at: 100, reportedAt: 90, downloadOnly: false, verify: true },
    }]);
    // a plain action and a skipped one do not wait
    expect(run(anAction(), fb('closed', 'success')).record.verifying).toBeUndefined();
    expect(run(anAction({ verifyInstall: true, status: 'scheduled', active: false }), { type: 'group.skipped', at: 100 }).record.verifying).toBeUndefined();
  });

  it('device.verified confirms it once (history entry, the target told); device.fellBack turns it into an error with the reason', () => {
    const ok = run(waiting, { type: 'device.verified', at: 200, evidence: 'the target reports version \'2\'' });
    expect(ok.state).toBe('finished');
    expect(ok.record.verifying).toBe(false);
    expect(ok.entries.map((e) => e.messages.join())).toEqual([expect.stringContaining('Install verified: the target reports version \'2\'')]);
    expect(ok.effects).toEqual([{ type: 'send', to: { kind: 'target', id: 1 }, event: { type: 'action.verified', action: 10, at: 200 } }]);
    expect(run(ok.record, { type: 'device.verified', at: 300, evidence: 'again' }).changed).toBe(false);

    const fell = run(waiting, { type: 'device.fellBack', evidence: 'the target reported failure', ...report, details: ['old slot'] });
    expect(fell.state).toBe('error');
    expect(fell.entries[0]).toMatchObject({ type: 'error', messages: [expect.stringContaining('Install not verified: the target reported failure'), 'old slot'] });
    expect(run(ok.record, { type: 'device.fellBack', evidence: 'late', ...report }).changed).toBe(false);
    expect(run(waiting, { type: 'engine.timedOut', at: 400, message: 'Action timed out: x' }).record).toMatchObject({ status: 'error', timedOut: true });
  });
});
