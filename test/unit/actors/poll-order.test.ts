/**
 * The order a rollout group's actions start in (src/actors/poll-order.ts): by each target's expected
 * next poll, so the devices that poll first get theirs first; targets never polled last; every action kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { byNextPoll, nextPoll } from '../../../src/actors/poll-order.js';
import { SCHEMA } from '../../../src/app/schema.js';
import type { ActionRecord } from '../../../src/domain/action.js';
import { openStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/port.js';

let store: Store;
afterEach(async () => {
  await store?.close();
});

const action = (id: number, targetId: number): ActionRecord => ({ id, targetId } as ActionRecord);

describe('rollout start order by next poll', () => {
  it('next poll: the last poll plus whole intervals, the first after now', () => {
    expect(nextPoll(1000, 1000, 1500)).toBe(2000);
    expect(nextPoll(1000, 1000, 2000)).toBe(2000);
    expect(nextPoll(1000, 1000, 2001)).toBe(3000);
    expect(nextPoll(1000, 1000, 10_500)).toBe(11_000);
    expect(nextPoll(1000, 60_000, 1000)).toBe(61_000); // polled just now: a whole interval away
    expect(nextPoll(5000, 1000, 4000)).toBe(6000); // a poll recorded after `now` (clocks apart)
  });

  it('orders the actions by their targets\' next poll; targets never polled last, in the order given', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    // 1 s polls; at now = 10,000: target 1 polled 9,900 (next 10,900), 2 at 9,200 (10,200), 3 at 8,500 (10,500:
    // it polled long ago, but its next poll is the third), 4 at 9,600 (10,600); 5 and 6 never polled
    await store.recordPolls('T', [
      { id: 1, at: 9900, address: null }, { id: 2, at: 9200, address: null },
      { id: 3, at: 8500, address: null }, { id: 4, at: 9600, address: null },
    ]);
    const actions = [action(11, 1), action(15, 5), action(12, 2), action(16, 6), action(13, 3), action(14, 4)];
    const ordered = await byNextPoll(store, 'T', actions, 1000, 10_000);
    expect(ordered.map((a) => a.targetId)).toEqual([2, 3, 4, 1, 5, 6]);
    expect(actions.map((a) => a.id)).toEqual([11, 15, 12, 16, 13, 14]); // the input is left as it was
  });

  it('keeps the order given without a polling interval or with one action', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    await store.recordPolls('T', [{ id: 1, at: 9900, address: null }, { id: 2, at: 9200, address: null }]);
    const actions = [action(11, 1), action(12, 2)];
    expect((await byNextPoll(store, 'T', actions, 0, 10_000)).map((a) => a.id)).toEqual([11, 12]);
    expect((await byNextPoll(store, 'T', [action(11, 1)], 1000, 10_000)).map((a) => a.id)).toEqual([11]);
  });
});
