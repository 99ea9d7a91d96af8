import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, type ActionRecord, type ActionStatus } from '../../../src/domain/action.js';
import { EXECUTIONS, FINISHED_RESULTS, type ActionEvent } from '../../../src/domain/action.events.js';
import { actionMachine, reportStay } from '../../../src/domain/action.machine.js';
import { machineStep, step } from '../../../src/actors/step.js';
import { anAction } from '../../fixtures/records.js';

const reports = [
  { at: 100, timestamp: 90, code: null, details: [] },
  { at: 200, timestamp: 200, code: 7, details: ['one', 'two'] },
  { at: 300, timestamp: 1, code: 0, details: ['only'] },
];
/** Every state of the machine (the statuses it can be in). */
const STATES = Object.keys(actionMachine.states) as ActionStatus[];
const records: ActionRecord[] = STATES.flatMap((status) => ACTION_TYPES.flatMap((actionType) => [
  anAction({ status, actionType }),
  anAction({ status, actionType, lastEntry: 'download', lastDownload: '/x', lastStatusCode: 3, entries: 40, lastModifiedBy: 'mgmt' }),
  anAction({ status, actionType, verifyInstall: true, verifying: true, active: false, lastEntry: 'retrieved' }),
]));
const reportEvents: ActionEvent[] = ['device.feedback', 'device.cancelFeedback'].flatMap((type) => EXECUTIONS.flatMap((execution) =>
  FINISHED_RESULTS.flatMap((finished) => reports.map((r) => ({ type, execution, finished, ...r }) as ActionEvent))));
const others: ActionEvent[] = [
  { type: 'device.retrieved', at: 50 },
  { type: 'device.downloading', at: 50, uri: '/x' },
  { type: 'device.confirmed', ...reports[1]! },
  { type: 'mgmt.cancel', at: 50, by: 'u', reason: 'manual' },
];

describe("the action machine's report shortcut (reportStay)", () => {
  it('gives what the machine gives, key order included, for every state, action and report', () => {
    let shortcuts = 0;
    for (const record of records) {
      for (const event of [...reportEvents, ...others]) {
        if (reportStay(record, event) !== undefined) shortcuts++;
        const fast = step(actionMachine, 'status', record, event);
        const machine = machineStep(actionMachine, 'status', record, event);
        expect(fast, `${record.status}/${record.actionType} ${event.type} ${JSON.stringify(event)}`).toStrictEqual(machine);
        expect(JSON.stringify(fast.record)).toBe(JSON.stringify(machine.record));
      }
    }
    // 3 reporting states x 4 types x 3 variants x 6 executions x 3 results x 3 reports
    expect(shortcuts).toBe(3 * 4 * 3 * 6 * 3 * 3);
  });

  it('takes the intermediate deployment reports in running, retrieved and canceling, and nothing else', () => {
    const proceeding = { type: 'device.feedback', execution: 'proceeding', finished: 'none', ...reports[0]! } as const;
    for (const status of ['running', 'retrieved', 'canceling'] as const) {
      expect(reportStay(anAction({ status }), proceeding)?.record).toMatchObject({ status, entries: 2, lastEntry: 'running', lastModifiedAt: 100 });
    }
    expect(reportStay(anAction({ status: 'finished' }), proceeding)).toBeUndefined();
    expect(reportStay(anAction(), { ...proceeding, execution: 'closed' })).toBeUndefined();
    expect(reportStay(anAction(), { ...proceeding, execution: 'downloaded' })).toBeUndefined();
    expect(reportStay(anAction(), { ...proceeding, type: 'device.cancelFeedback' })).toBeUndefined();
  });
});
