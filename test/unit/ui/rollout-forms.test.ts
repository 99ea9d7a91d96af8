/**
 * The console's rollout logic without a browser: the wizard's RolloutCreate body and step checks, and
 * which operations the rollout page offers in each status (ui/src/rollouts).
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, createBody, missingIn, newGroup, type RolloutForm } from '../../../ui/src/rollouts/create-body.js';
import { operationRequest, operationsFor } from '../../../ui/src/rollouts/operations.js';
import type { RolloutGroup, RolloutStatus } from '../../../ui/src/rollouts/model.js';

const form = (patch: Partial<RolloutForm>): RolloutForm => ({
  ...EMPTY_FORM, name: ' fw-2 ', distributionSetId: 7, targetFilterQuery: 'controllerid==a-*', ...patch,
});

describe('rollout create body', () => {
  it('sends equal groups with the conditions as hawkBit names them', () => {
    expect(createBody(form({ amountGroups: '4', successThreshold: '100', errorThreshold: '10' }))).toEqual({
      name: 'fw-2', targetFilterQuery: 'controllerid==a-*', distributionSetId: 7, type: 'forced', amountGroups: 4,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, successAction: { action: 'NEXTGROUP', expression: '' },
      errorCondition: { condition: 'THRESHOLD', expression: '10' }, errorAction: { action: 'PAUSE', expression: '' },
      confirmationRequired: false,
    });
  });

  it('sends explicit groups (a filter only where one is given), force time, start time and weight', () => {
    const body = createBody(form({
      groupMode: 'explicit', type: 'timeforced', forcetime: '2030-01-02T03:04', startMode: 'at', startAt: '2030-01-01T00:00', weight: '500',
      groups: [{ ...newGroup(0), targetPercentage: '20', targetFilterQuery: ' attribute.region==eu ' }, newGroup(1)],
    }));
    expect(body['groups']).toEqual([
      { name: 'group-1', targetPercentage: 20, targetFilterQuery: 'attribute.region==eu' },
      { name: 'group-2', targetPercentage: 100 },
    ]);
    expect(body).not.toHaveProperty('amountGroups');
    expect(body['forcetime']).toBe(new Date('2030-01-02T03:04').getTime());
    expect(body['startAt']).toBe(new Date('2030-01-01T00:00').getTime());
    expect(body['weight']).toBe(500);
  });

  it('leaves a number it cannot read to the server, which names the field', () => {
    expect(createBody(form({ amountGroups: 'three' }))['amountGroups']).toBe('three');
  });

  it('stops a step only for what a body needs', () => {
    expect(missingIn('Basics', form({ name: ' ' }))).toMatch(/name/);
    expect(missingIn('Basics', form({ distributionSetId: null }))).toMatch(/distribution set/);
    expect(missingIn('Basics', form({ targetFilterValid: false }))).toMatch(/not valid/);
    expect(missingIn('Basics', form({}))).toBeNull();
    expect(missingIn('Groups', form({ amountGroups: '0' }))).toMatch(/at least 1/);
    expect(missingIn('Groups', form({ groupMode: 'explicit', groups: [] }))).toMatch(/at least one group/);
    expect(missingIn('Deployment', form({ type: 'timeforced' }))).toMatch(/time-forced/);
    expect(missingIn('Deployment', form({ startMode: 'at' }))).toMatch(/start time/);
    expect(missingIn('Deployment', form({}))).toBeNull();
  });
});

describe('rollout operations', () => {
  const group = (status: RolloutGroup['status']) => ({ status }) as RolloutGroup;
  const names = (status: RolloutStatus, groups: RolloutGroup[] = []) => operationsFor(status, groups).map((o) => o.name);

  it('offers what the status takes (src/domain/rollout.machine.ts)', () => {
    expect(names('ready')).toEqual(['start', 'stop', 'delete']);
    expect(names('waiting_for_approval')).toEqual(['approve', 'deny', 'stop', 'delete']);
    expect(names('running', [group('running'), group('scheduled')])).toEqual(['pause', 'triggerNextGroup', 'stop', 'delete']);
    expect(names('running', [group('finished'), group('running')])).toEqual(['pause', 'stop', 'delete']);
    expect(names('paused')).toEqual(['resume', 'stop', 'delete']);
    expect(names('finished')).toEqual(['retry', 'delete']);
    expect(names('stopping')).toEqual(['delete']);
    expect(names('deleted')).toEqual([]);
  });

  it('needs the permission each route checks', () => {
    const perm = Object.fromEntries(operationsFor('waiting_for_approval', []).map((o) => [o.name, o.permission]));
    expect(perm).toEqual({ approve: 'APPROVE_ROLLOUT', deny: 'APPROVE_ROLLOUT', stop: 'HANDLE_ROLLOUT', delete: 'DELETE_ROLLOUT' });
    expect(operationsFor('finished', []).find((o) => o.name === 'retry')?.permission).toBe('CREATE_ROLLOUT');
  });

  it('sends the remark of approve and deny as ?remark=, and DELETE for delete', () => {
    expect(operationRequest('approve', 3, ' ok & go ')).toEqual(['POST', '/rest/v1/rollouts/3/approve?remark=ok%20%26%20go']);
    expect(operationRequest('deny', 3, '')).toEqual(['POST', '/rest/v1/rollouts/3/deny']);
    expect(operationRequest('start', 3, 'ignored')).toEqual(['POST', '/rest/v1/rollouts/3/start']);
    expect(operationRequest('delete', 3)).toEqual(['DELETE', '/rest/v1/rollouts/3']);
  });
});
