import { describe, expect, it } from 'vitest';
import { targetMachine } from '../../../src/domain/target.machine.js';
import type { TargetRecord, UpdateStatus } from '../../../src/domain/target.js';
import { aTarget } from '../../fixtures/records.js';
import { step } from '../../../src/actors/step.js';

const run = (t: TargetRecord, e: Parameters<typeof step>[3]) => step(targetMachine, 'updateStatus', t, e);

describe('target updateStatus machine (reference §4.3)', () => {
  it('a target created over the Management API registers at its first poll', () => {
    const r = run(aTarget({ updateStatus: 'unknown' }), { type: 'device.polled', at: 5 });
    expect(r.state).toBe('registered');
  });

  it.each<UpdateStatus>(['registered', 'pending', 'in_sync', 'error'])('a poll in %s changes nothing', (s) => {
    const r = run(aTarget({ updateStatus: s }), { type: 'device.polled', at: 5 });
    expect(r.changed).toBe(false);
    expect(r.state).toBe(s);
  });

  it.each<UpdateStatus>(['unknown', 'registered', 'in_sync', 'error', 'pending'])('an online assignment in %s makes it pending with the DS assigned', (s) => {
    const r = run(aTarget({ updateStatus: s }), { type: 'mgmt.assigned', ds: 3, at: 9, by: 'admin' });
    expect(r.state).toBe('pending');
    expect(r.record.assignedDs).toBe(3);
    expect(r.record.lastModifiedBy).toBe('admin');
  });

  it('a finished action installs the DS and, when it is the assigned one, the target is in sync and asked for attributes', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3, requestAttributes: false }),
      { type: 'action.finished', ds: 3, action: 11, at: 20, reportedAt: 19, downloadOnly: false });
    expect(r.state).toBe('in_sync');
    expect(r.record).toMatchObject({ installedDs: 3, installedAt: 19, installedAction: 11, assignedDs: 3, requestAttributes: true });
  });

  it('a finished action whose DS is no longer the assigned one installs it but stays pending', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 4 }),
      { type: 'action.finished', ds: 3, action: 11, at: 20, reportedAt: 19, downloadOnly: false });
    expect(r.state).toBe('pending');
    expect(r.record).toMatchObject({ installedDs: 3, assignedDs: 4 });
  });

  it('a late finished report older than the installation does not roll the installed DS back', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 4, installedDs: 4, installedAt: 100 }),
      { type: 'action.finished', ds: 3, action: 11, at: 120, reportedAt: 50, downloadOnly: false });
    expect(r.record).toMatchObject({ installedDs: 4, installedAt: 100 });
    expect(r.state).toBe('in_sync');
  });

  it('a failed action puts the target in error and clears the assigned DS', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3 }), { type: 'action.failed', ds: 3, at: 20 });
    expect(r.state).toBe('error');
    expect(r.record.assignedDs).toBeNull();
  });

  it('a download-only action that downloaded makes the target in sync without installing', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3, requestAttributes: false }), { type: 'action.downloaded', ds: 3, at: 20 });
    expect(r.state).toBe('in_sync');
    expect(r.record).toMatchObject({ installedDs: null, requestAttributes: true });
  });

  it('a cancellation with no other active action falls back to the installed DS, in sync', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3, installedDs: 2 }), { type: 'action.canceled', nextDs: null, at: 20 });
    expect(r.state).toBe('in_sync');
    expect(r.record.assignedDs).toBe(2);
  });

  it('a cancellation with another active action assigns that action\'s DS and stays pending', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3, installedDs: 2 }), { type: 'action.canceled', nextDs: 5, at: 20 });
    expect(r.state).toBe('pending');
    expect(r.record.assignedDs).toBe(5);
  });

  it('an offline assignment records the DS as assigned and installed, in sync', () => {
    const r = run(aTarget({ updateStatus: 'registered' }), { type: 'mgmt.assignedOffline', ds: 8, action: 12, at: 30, by: 'admin' });
    expect(r.state).toBe('in_sync');
    expect(r.record).toMatchObject({ assignedDs: 8, installedDs: 8, installedAt: 30, installedAction: 12 });
  });

  it('the same finished action reported again changes nothing', () => {
    const r = run(aTarget({ updateStatus: 'in_sync', assignedDs: 3, installedDs: 3, installedAction: 11, installedAt: 19 }),
      { type: 'action.finished', ds: 3, action: 11, at: 30, reportedAt: 19, downloadOnly: false });
    expect(r.changed).toBe(false);
  });

  it('emits no effects (it only receives them)', () => {
    const r = run(aTarget({ updateStatus: 'pending', assignedDs: 3 }), { type: 'action.finished', ds: 3, action: 11, at: 1, reportedAt: 1, downloadOnly: false });
    expect(r.effects).toEqual([]);
  });
});
