import { describe, expect, it } from 'vitest';
import type { ActionStatus } from '../../../src/domain/action.js';
import { statusEvent } from '../../../src/dmf/action-status.js';
import { DMF_ACTION_STATUSES, type DmfActionStatus } from '../../../src/dmf/protocol.js';
import { formatAmqpAddress, parseAmqpAddress } from '../../../src/dmf/address.js';
import { updateTopic } from '../../../src/dmf/outbound.js';
import { anAction } from '../../fixtures/records.js';

const report = { at: 5, timestamp: 4, code: null, details: ['d'] };
const decide = (s: DmfActionStatus, status: ActionStatus, flow = false, actionType: 'forced' | 'downloadonly' = 'forced') =>
  statusEvent(s, anAction({ status, active: !['finished', 'error', 'canceled', 'downloaded', 'scheduled'].includes(status), actionType }), report, flow);

describe('UPDATE_ACTION_STATUS to action machine events', () => {
  it.each([
    ['DOWNLOAD', { type: 'device.feedback', execution: 'download', finished: 'none' }, false],
    ['RUNNING', { type: 'device.feedback', execution: 'proceeding', finished: 'none' }, false],
    ['WARNING', { type: 'device.feedback', execution: 'rejected', finished: 'none' }, false],
    ['DOWNLOADED', { type: 'device.feedback', execution: 'downloaded', finished: 'none' }, false],
    ['FINISHED', { type: 'device.feedback', execution: 'closed', finished: 'success' }, true],
    ['ERROR', { type: 'device.feedback', execution: 'closed', finished: 'failure' }, true],
    ['RETRIEVED', { type: 'device.retrieved', at: 5 }, false],
  ] as const)('%s on a running action', (status, event, final) => {
    expect(decide(status, 'running')).toEqual({ ok: true, event: expect.objectContaining(event), final });
  });

  it('DOWNLOADED closes only a download-only action (no entry quota then)', () => {
    expect(decide('DOWNLOADED', 'running', false, 'downloadonly')).toMatchObject({ ok: true, final: true });
  });

  it('a downloaded download-only action takes FINISHED or ERROR, nothing else', () => {
    expect(decide('FINISHED', 'downloaded', false, 'downloadonly')).toMatchObject({ ok: true, event: { execution: 'closed', finished: 'success' }, final: true });
    expect(decide('ERROR', 'downloaded', false, 'downloadonly')).toMatchObject({ ok: true, event: { execution: 'closed', finished: 'failure' } });
    expect(decide('RUNNING', 'downloaded', false, 'downloadonly')).toMatchObject({ ok: false });
    expect(decide('FINISHED', 'downloaded')).toMatchObject({ ok: false });
  });

  it('CANCELED and CANCEL_REJECTED need a canceling action', () => {
    expect(decide('CANCELED', 'canceling')).toMatchObject({ ok: true, event: { type: 'device.cancelFeedback', execution: 'closed', finished: 'success' }, final: true });
    expect(decide('CANCEL_REJECTED', 'canceling')).toMatchObject({ ok: true, event: { type: 'device.cancelFeedback', execution: 'rejected' } });
    expect(decide('CANCELED', 'running')).toMatchObject({ ok: false });
    expect(decide('CANCEL_REJECTED', 'retrieved')).toMatchObject({ ok: false });
  });

  it('CONFIRMED and DENIED follow the confirmation rules; other reports wait for them', () => {
    expect(decide('CONFIRMED', 'wait_for_confirmation')).toMatchObject({ ok: true, event: { type: 'device.confirmed', details: ['d'] } });
    expect(decide('CONFIRMED', 'running')).toMatchObject({ ok: false });
    expect(decide('DENIED', 'wait_for_confirmation')).toMatchObject({ ok: true, event: { type: 'device.denied' } });
    expect(decide('DENIED', 'running')).toMatchObject({ ok: false });
    expect(decide('DENIED', 'running', true)).toMatchObject({ ok: true });
    expect(decide('DENIED', 'canceling', true)).toMatchObject({ ok: false });
    expect(decide('RUNNING', 'wait_for_confirmation')).toMatchObject({ ok: false });
  });

  it.each(DMF_ACTION_STATUSES)('%s on a closed action is refused', (status) => {
    expect(decide(status, 'finished')).toMatchObject({ ok: false });
  });
});

describe('DMF addresses', () => {
  it('encode the virtual host and the exchange, and read back', () => {
    expect(formatAmqpAddress({ vhost: '/', exchange: 'gw.replies' })).toBe('amqp://%2F/gw.replies');
    expect(parseAmqpAddress('amqp://%2F/gw.replies')).toEqual({ vhost: '/', exchange: 'gw.replies' });
    expect(parseAmqpAddress(formatAmqpAddress({ vhost: 'prod/eu', exchange: 'a b' }))).toEqual({ vhost: 'prod/eu', exchange: 'a b' });
    for (const other of [null, undefined, '', 'http://1.2.3.4', 'amqp://vhost', 'amqp://vhost/', 'amqp:///x', 'amqp://%E0%A4%A/x']) {
      expect(parseAmqpAddress(other)).toBeUndefined();
    }
  });
});

describe('the topic of an update message', () => {
  const at = Date.UTC(2026, 0, 10, 12, 30, 0); // 12:30 UTC: inside a 12:00-13:00 window
  const window = (hour: number) => ({ schedule: `0 0 ${hour} * * ?`, duration: '01:00:00', timezone: '+00:00' });
  it('CONFIRM while waiting, DOWNLOAD for download-only and before the maintenance window, else DOWNLOAD_AND_INSTALL', () => {
    expect(updateTopic(anAction({ status: 'wait_for_confirmation' }), at)).toBe('CONFIRM');
    expect(updateTopic(anAction({ actionType: 'downloadonly' }), at)).toBe('DOWNLOAD');
    expect(updateTopic(anAction({ maintenanceWindow: window(3) }), at)).toBe('DOWNLOAD');
    expect(updateTopic(anAction({ maintenanceWindow: window(12) }), at)).toBe('DOWNLOAD_AND_INSTALL');
    expect(updateTopic(anAction(), at)).toBe('DOWNLOAD_AND_INSTALL');
  });
});
