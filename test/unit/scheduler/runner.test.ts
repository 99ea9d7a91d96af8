import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import { leaseName, TaskRunner, type Task } from '../../../src/scheduler/runner.js';
import { openStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/port.js';

const quiet = { error: () => {} };
let store: Store;
afterEach(async () => {
  await store?.close();
});

function counting(name: string, leased: boolean, runs: string[]): Task {
  return { name, intervalMs: 60_000, leased, run: async (tenant) => { runs.push(`${name}:${tenant}`); return 1; } };
}

describe('scheduler task runner', () => {
  it('runs a leased tenant pass on one instance only; the other skips it until the lease is released', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const runs: string[] = [];
    const task = counting('job', true, runs);
    const a = new TaskRunner({ store, tenants: { list: () => ['T1', 'T2'] }, owner: 'a', log: quiet });
    const b = new TaskRunner({ store, tenants: { list: () => ['T2', 'T3'] }, owner: 'b', log: quiet });
    expect(await a.runNow(task, 0)).toEqual({ counts: { T1: 1, T2: 1 }, skipped: [] });
    expect(await b.runNow(task, 0)).toEqual({ counts: { T3: 1 }, skipped: ['T2'] });
    expect(await a.runNow(task, 0)).toEqual({ counts: { T1: 1, T2: 1 }, skipped: [] }); // the holder renews
    await a.stop([task]);
    expect(await store.acquireLease(leaseName(task, 'T2'), 'b', 1000)).toBe(true);
    expect(runs).toEqual(['job:T1', 'job:T2', 'job:T3', 'job:T1', 'job:T2']);
  });

  it('unleased tasks run everywhere; one failing tenant does not stop the others', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    const errors: object[] = [];
    const task: Task = {
      name: 'read', intervalMs: 1000, leased: false,
      run: async (tenant) => { if (tenant === 'BAD') throw new Error('boom'); return 7; },
    };
    const a = new TaskRunner({ store, tenants: { list: () => ['BAD', 'OK'] }, owner: 'a', log: { error: (o) => errors.push(o) } });
    const b = new TaskRunner({ store, tenants: { list: () => ['OK'] }, owner: 'b', log: quiet });
    expect(await a.runNow(task, 0)).toEqual({ counts: { OK: 7 }, skipped: [] });
    expect(await b.runNow(task, 0)).toEqual({ counts: { OK: 7 }, skipped: [] });
    expect(errors).toHaveLength(1);
  });

  it('never overlaps passes of one task, and runs on the interval after start until stop', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    let active = 0;
    let maxActive = 0;
    let passes = 0;
    const task: Task = {
      name: 'slow', intervalMs: 10, leased: true,
      run: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 20)); // a slow pass: longer than the interval
        active--;
        passes++;
        return 0;
      },
    };
    const runner = new TaskRunner({ store, tenants: { list: () => ['T'] }, owner: 'a', log: quiet });
    runner.start([task]);
    await Promise.all([runner.runNow(task, 0), runner.runNow(task, 0)]);
    await expect.poll(() => passes, { timeout: 2000 }).toBeGreaterThanOrEqual(4);
    await runner.stop([task]);
    const after = passes;
    await new Promise((r) => setTimeout(r, 60)); // deliberately several intervals: no pass runs after stop
    expect(passes).toBe(after);
    expect(maxActive).toBe(1);
  });

  it('a wake brings the next pass forward; wakes during a pass run one more right after it', async () => {
    store = await openStore({ kind: 'memory', schema: SCHEMA });
    vi.useFakeTimers();
    try {
      let passes = 0;
      let release: (() => void) | undefined;
      const task: Task = {
        name: 'woken', intervalMs: 60_000, leased: false,
        run: async () => {
          passes++;
          if (passes === 2) await new Promise<void>((r) => { release = r; }); // the second pass waits to be let go
          return 0;
        },
      };
      const runner = new TaskRunner({ store, tenants: { list: () => ['T'] }, owner: 'a', log: quiet });
      runner.wake(task); // not started: nothing
      runner.start([task]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(passes).toBe(0); // the interval is a minute
      runner.wake(task);
      runner.wake(task); // several wakes before the pass: one pass
      await vi.advanceTimersByTimeAsync(50);
      expect(passes).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(passes).toBe(1); // back on the interval
      runner.wake(task);
      await vi.advanceTimersByTimeAsync(50);
      expect(passes).toBe(2); // running, held
      runner.wake(task); // during the pass
      release?.();
      await vi.advanceTimersByTimeAsync(50);
      expect(passes).toBe(3); // the pass after it came forward
      await vi.advanceTimersByTimeAsync(30_000);
      expect(passes).toBe(3);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(passes).toBe(4); // and then the interval again
      await runner.stop([task]);
      runner.wake(task); // stopped: nothing
      await vi.advanceTimersByTimeAsync(120_000);
      expect(passes).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
