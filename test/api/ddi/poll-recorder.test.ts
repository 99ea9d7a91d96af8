import { describe, expect, inject, it, vi } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import { PollRecorder } from '../../../src/ddi/index.js';
import { openMemoryStore, openStore } from '../../../src/store/index.js';
import type { PollRecord, Store } from '../../../src/store/port.js';
import { startDdiApp, targetOf } from './fixture.js';

const quiet = { warn: () => {} };

/** The memory store (`store`), and the recorder's view of it (`sink`), which counts recordPolls calls and fails the first `failures`. */
async function countingStore(failures = 0) {
  const store = openMemoryStore(SCHEMA);
  const calls: { tenant: string; polls: readonly (PollRecord & { id: number })[] }[] = [];
  let left = failures;
  const sink = {
    recordPolls: async (tenant: string, polls: readonly (PollRecord & { id: number })[]) => {
      calls.push({ tenant, polls });
      if (left-- > 0) throw new Error('store down');
      return store.recordPolls(tenant, polls);
    },
  } as unknown as Store;
  return { store, sink, calls };
}

describe('PollRecorder', () => {
  it('writes the newest poll per target with one recordPolls call per tenant', async () => {
    const { store, sink, calls } = await countingStore();
    const recorder = new PollRecorder({ store: sink, intervalMs: 60_000, log: quiet });
    for (let i = 1; i <= 100; i++) recorder.record('A', (i % 10) + 1, i, `http://10.0.0.${i}`);
    recorder.record('B', 1, 5, null);
    recorder.record('B', 1, 3, 'http://older'); // an older poll never replaces a newer one
    expect(recorder.pending).toBe(11);
    await recorder.flush();
    expect(calls.map((c) => [c.tenant, c.polls.length]).sort()).toEqual([['A', 10], ['B', 1]]);
    expect(await store.getPolls('A', [1, 2])).toEqual([{ at: 100, address: 'http://10.0.0.100' }, { at: 91, address: 'http://10.0.0.91' }]);
    expect(await store.getPolls('B', [1])).toEqual([{ at: 5, address: null }]);
    expect(recorder.pending).toBe(0);
    await recorder.flush();
    expect(calls).toHaveLength(2); // nothing pending: no call
  });

  it("writes the lane's queued notes with the generic path's, the newer poll per target", async () => {
    const { store, sink, calls } = await countingStore();
    const recorder = new PollRecorder({ store: sink, intervalMs: 60_000, log: quiet });
    const flushes = recorder.flushes;
    const [a, b, c] = [{ id: 1, at: 10, address: 'http://lane-a' }, { id: 2, at: 10, address: 'http://lane-b' }, { id: 3, at: 7, address: null }];
    recorder.enqueue('A', a);
    recorder.enqueue('A', b);
    recorder.enqueue('C', c);
    recorder.record('A', 1, 12, 'http://generic-a'); // newer than the lane's note
    recorder.record('A', 2, 8, 'http://generic-b'); // older
    recorder.touch(b, 11);
    expect(recorder.pending).toBe(5);
    await recorder.flush();
    expect(recorder.flushes).toBe(flushes + 1);
    expect(recorder.pending).toBe(0);
    expect(calls.map((x) => [x.tenant, x.polls.length]).sort()).toEqual([['A', 2], ['C', 1]]);
    expect(await store.getPolls('A', [1, 2])).toEqual([{ at: 12, address: 'http://generic-a' }, { at: 11, address: 'http://lane-b' }]);
    expect(await store.getPolls('C', [3])).toEqual([{ at: 7, address: null }]);
    // noted again in the next interval (the same note, updated in place)
    b.at = 20;
    recorder.enqueue('A', b);
    await recorder.flush();
    expect(await store.getPolls('A', [2])).toEqual([{ at: 20, address: 'http://lane-b' }]);
  });

  it("sends a kept note's address once per read: the store keeps it, a newer one read during the write goes next", async () => {
    const store = openMemoryStore(SCHEMA);
    const sent: (string | null)[][] = [];
    let during: (() => void) | undefined;
    const sink = {
      recordPolls: async (tenant: string, polls: readonly (PollRecord & { id: number })[]) => {
        sent.push(polls.map((p) => p.address));
        await store.recordPolls(tenant, polls);
        during?.();
      },
    } as unknown as Store;
    const recorder = new PollRecorder({ store: sink, intervalMs: 60_000, log: quiet });
    const note = { id: 1, at: 10, address: 'http://10.0.0.1' as string | null };
    recorder.enqueue('A', note);
    await recorder.flush();
    note.at = 20; // polled again, the address not read again
    recorder.enqueue('A', note);
    during = () => { note.address = 'http://10.0.0.2'; }; // read while the write is under way
    await recorder.flush();
    expect(await store.getPolls('A', [1])).toEqual([{ at: 20, address: 'http://10.0.0.1' }]);
    during = undefined;
    note.at = 30;
    recorder.enqueue('A', note);
    await recorder.flush();
    expect(sent).toEqual([['http://10.0.0.1'], [null], ['http://10.0.0.2']]);
    expect(await store.getPolls('A', [1])).toEqual([{ at: 30, address: 'http://10.0.0.2' }]);
    expect(note.address).toBeNull();
  });

  it('writes a large flush in slices of 250, every poll of it', async () => {
    const { store, sink, calls } = await countingStore();
    const recorder = new PollRecorder({ store: sink, intervalMs: 60_000, log: quiet });
    for (let id = 1; id <= 2600; id++) recorder.record('A', id, id, null);
    await recorder.flush();
    expect(calls.map((c) => c.polls.length)).toEqual([...Array<number>(10).fill(250), 100]);
    const ids = Array.from({ length: 2600 }, (_, i) => i + 1);
    expect((await store.getPolls('A', ids)).every((p, i) => p?.at === i + 1)).toBe(true);
  });

  it('keeps the polls of a failed flush for the next one, where newer polls win', async () => {
    const { store, sink, calls } = await countingStore(1);
    const recorder = new PollRecorder({ store: sink, intervalMs: 60_000, log: quiet });
    recorder.record('A', 1, 10, 'http://a');
    await recorder.flush();
    expect(await store.getPolls('A', [1])).toEqual([undefined]);
    recorder.record('A', 1, 20, 'http://b');
    recorder.record('A', 2, 15, null);
    await recorder.stop();
    expect(calls).toHaveLength(2);
    expect(await store.getPolls('A', [1, 2])).toEqual([{ at: 20, address: 'http://b' }, { at: 15, address: null }]);
  });

  it('flushes on its interval', async () => {
    const { store, sink } = await countingStore();
    const recorder = new PollRecorder({ store: sink, intervalMs: 10, log: quiet });
    recorder.start();
    recorder.record('A', 1, 1, null);
    await vi.waitFor(async () => expect(await store.getPolls('A', [1])).toEqual([{ at: 1, address: null }]), { timeout: 5000, interval: 10 });
    await recorder.stop();
  });
});

describe('poll records across a graceful shutdown (redis store)', () => {
  it('loses nothing: the server flushes the buffered polls when it stops', async () => {
    const app = await startDdiApp('redis', { pollFlushMs: 600_000 }); // 10 minutes: only the stop flushes
    const before = Date.now();
    for (const cid of ['stop-1', 'stop-2', 'stop-3']) expect((await app.device(cid).get()).status).toBe(200);
    const ids = await Promise.all(['stop-1', 'stop-2', 'stop-3'].map(async (cid) => (await targetOf(app, cid)).id));
    expect(await app.store.getPolls(app.tenant, ids)).toEqual([undefined, undefined, undefined]);
    await app.server.close();
    const store = await openStore({ kind: 'redis', redisUrl: inject('redisUrl'), schema: SCHEMA });
    try {
      const polls = await store.getPolls(app.tenant, ids);
      for (const p of polls) {
        expect(p?.address).toBe('http://127.0.0.1');
        expect(p?.at).toBeGreaterThanOrEqual(before);
      }
    } finally {
      await store.close();
    }
  });
});
