/**
 * The event hub on the memory store's journal: subscribers that join at any position, while commits
 * keep coming, get every entry after their position exactly once and in order; a position the journal
 * no longer holds is reported as lost; one reader serves all subscribers of a tenant.
 */
import { describe, expect, it, vi } from 'vitest';
import type { JournalEvent } from '../../../src/actors/journal.js';
import { EventHub } from '../../../src/events/hub.js';
import { JOURNAL_LENGTH } from '../../../src/store/journal.js';
import { openMemoryStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/port.js';

const T = 'HUB';
const silent = { warn: () => undefined };
const event = (n: number): JournalEvent => ({ type: 'target', targetId: n, controllerId: `c${n}`, updateStatus: 'unknown' });
const commit = (store: Store, n: number) => store.commit(T, { writes: [], journal: [event(n)] });
const until = (check: () => boolean, what: string): Promise<void> =>
  vi.waitFor(() => expect(check(), `waiting for ${what}`).toBe(true), { timeout: 5000, interval: 10 });

describe('event hub', () => {
  it('hands every entry after each position exactly once, in order, to subscribers joining while commits come', async () => {
    const store = openMemoryStore({});
    const hub = new EventHub(store, { intervalMs: 5, batch: 7, log: silent });
    const positions: string[] = [];
    for (let n = 1; n <= 40; n++) {
      await commit(store, n);
      positions.push(await hub.position(T));
    }
    const got = new Map<number, number[]>();
    const subs = [0, 10, 25, 39].map((i) => {
      const seen: number[] = [];
      got.set(i, seen);
      return hub.subscribe(T, positions[i]!, {
        deliver: (entries) => void seen.push(...entries.flatMap((e) => e.events.map((ev) => Number(ev['targetId'])))),
        lost: () => seen.push(-1),
      });
    });
    // commits while they catch up
    for (let n = 41; n <= 100; n++) {
      await commit(store, n);
      if (n % 9 === 0) await new Promise((r) => setTimeout(r, 3)); // deliberately spread: commits arrive during the catch-up
    }
    await until(() => [...got.values()].every((s) => s.at(-1) === 100), 'every subscriber at 100');
    for (const [i, seen] of got) expect(seen.join(','), `from ${i}`).toEqual(Array.from({ length: 100 - (i + 1) }, (_, k) => i + 2 + k).join(','));
    for (const s of subs) s.close();
    hub.close();
  });

  it('reports a position the journal no longer holds as lost, and follows with one reader per tenant', async () => {
    const store = openMemoryStore({});
    let reads = 0;
    const counting: Pick<Store, 'readJournal'> = { readJournal: (...args) => (reads++, store.readJournal(...args)) };
    const hub = new EventHub(counting, { intervalMs: 20, log: silent });
    const start = await hub.position(T);
    for (let n = 0; n < JOURNAL_LENGTH + 5; n++) await commit(store, n);
    let lost = false;
    hub.subscribe(T, start, { deliver: () => undefined, lost: () => (lost = true) });
    await until(() => lost, 'the loss');
    expect(await hub.holdsAfter(T, start)).toBe(false);

    const now = await hub.position(T);
    const seen = Array.from({ length: 50 }, () => [] as number[]);
    const arrays = new Set<unknown>();
    const subs = seen.map((s) => hub.subscribe(T, now, {
      deliver: (entries) => {
        arrays.add(entries);
        s.push(entries.length);
      },
      lost: () => void s.push(-1),
    }));
    await new Promise((r) => setTimeout(r, 100)); // deliberately: the subscriptions settle into the read loop
    reads = 0;
    await new Promise((r) => setTimeout(r, 400)); // deliberately a window of read intervals, whose reads are counted
    // one shared read per interval, not one per subscriber (50)
    expect(reads).toBeLessThan(40);
    await commit(store, -1);
    await until(() => seen.every((s) => s.length === 1), 'every subscriber got the new entry');
    // one read's entries reach every subscriber as one array, so what is sent is derived once
    expect(arrays.size).toBe(1);
    expect(hub.subscribers).toBe(50);
    for (const s of subs) s.close();
    expect(hub.subscribers).toBe(0);
    hub.close();
  });

  it('tries a failed catch-up read again rather than dropping the subscriber', async () => {
    const store = openMemoryStore({});
    const start = '0-0';
    await commit(store, 1);
    let failing = 2;
    const flaky: Pick<Store, 'readJournal'> = {
      readJournal: (tenant, after, count) => {
        // the catch-up read (from the subscriber's old position) fails twice, as a store in failover does
        if (after === start && failing > 0) {
          failing--;
          return Promise.reject(new Error('store unavailable'));
        }
        return store.readJournal(tenant, after, count);
      },
    };
    const hub = new EventHub(flaky, { intervalMs: 5, log: silent });
    const seen: number[] = [];
    // a subscriber already followed past the entry, so the new one must catch up on its own
    const first = hub.subscribe(T, await hub.position(T), { deliver: () => undefined, lost: () => undefined });
    const sub = hub.subscribe(T, start, {
      deliver: (entries) => void seen.push(...entries.flatMap((e) => e.events.map((ev) => Number(ev['targetId'])))),
      lost: () => void seen.push(-1),
    });
    await until(() => seen.length > 0, 'the entry after the failed reads');
    expect(failing).toBe(0);
    expect(seen).toEqual([1]);
    sub.close();
    first.close();
    hub.close();
  });
});
