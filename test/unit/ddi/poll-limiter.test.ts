import { describe, expect, it } from 'vitest';
import { BURST, FULL_MS, PollLimiter } from '../../../src/ddi/poll-limiter.js';

describe('poll limiter', () => {
  it('allows a burst, then one poll per refill interval, per device and tenant', () => {
    const limiter = new PollLimiter(100);
    for (let i = 0; i < BURST; i++) expect(limiter.take('T', 'dev', 30_000, 1000)).toEqual({ ok: true });
    expect(limiter.take('T', 'dev', 30_000, 1000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    // other devices and the same controller id in another tenant have buckets of their own
    expect(limiter.take('T', 'other', 30_000, 1000).ok).toBe(true);
    expect(limiter.take('U', 'dev', 30_000, 1000).ok).toBe(true);
    expect(limiter.take('T', 'dev', 30_000, 2000).ok).toBe(true);
    expect(limiter.take('T', 'dev', 30_000, 2000).ok).toBe(false);
  });

  it('keeps a registered target (by id) apart from an unknown device whose controller id reads the same', () => {
    const limiter = new PollLimiter(100);
    for (let i = 0; i < BURST; i++) expect(limiter.take('T', 5, 30_000, 1000).ok).toBe(true);
    expect(limiter.take('T', 5, 30_000, 1000).ok).toBe(false);
    expect(limiter.take('T', '5', 30_000, 1000).ok).toBe(true);
  });

  it('hands a device its bucket on when it registers', () => {
    const limiter = new PollLimiter(100);
    for (let i = 0; i < BURST; i++) expect(limiter.take('T', 'new-dev', 30_000, 1000).ok).toBe(true);
    limiter.registered('T', 'new-dev', 7);
    expect(limiter.take('T', 7, 30_000, 1000).ok).toBe(false);
    expect(limiter.take('T', 'new-dev', 30_000, 1000).ok).toBe(true); // the old key holds nothing any more
  });

  it('is off with minPollingTime 0', () => {
    const limiter = new PollLimiter(100);
    for (let i = 0; i < 3 * BURST; i++) expect(limiter.take('T', 'dev', 0, 1000).ok).toBe(true);
  });

  it('remembers at most maxDevices devices; a forgotten one starts with a full bucket', () => {
    const limiter = new PollLimiter(4);
    for (let i = 0; i < BURST; i++) limiter.take('T', 'dev', 30_000, 1000);
    expect(limiter.take('T', 'dev', 30_000, 1000).ok).toBe(false);
    // two devices fill the young generation (half of 4): 'dev' moves to the old one, still limited
    limiter.take('T', 'a', 30_000, 1000);
    limiter.take('T', 'b', 30_000, 1000);
    expect(limiter.take('T', 'dev', 30_000, 1000).ok).toBe(false);
    // four more devices push it out of both generations
    for (const d of ['c', 'd', 'e', 'f']) limiter.take('T', d, 30_000, 1000);
    expect(limiter.take('T', 'dev', 30_000, 1000).ok).toBe(true);
  });

  it('turns its generations every FULL_MS, forgetting only buckets that are full again by then', () => {
    const limiter = new PollLimiter(1_000_000);
    const t0 = 50_000;
    limiter.take('T', 2, 30_000, t0); // device 2 polls once and falls silent
    // device 1 uses its burst half a second before the next turn
    const t1 = t0 + FULL_MS - 500;
    for (let i = 0; i < BURST; i++) expect(limiter.take('T', 1, 30_000, t1).ok).toBe(true);
    expect(limiter.take('T', 1, 30_000, t1).ok).toBe(false);
    const rotations = limiter.rotations;
    // the turn: device 1 is still limited (moved to the old generation, not forgotten)
    const t2 = t0 + FULL_MS + 100;
    expect(limiter.take('T', 1, 30_000, t2).ok).toBe(false);
    expect(limiter.rotations).toBe(rotations + 1);
    // the turn after: device 2, not seen for two turns, is forgotten with a full bucket, as it would have been
    const t3 = t2 + FULL_MS;
    for (let i = 0; i < BURST; i++) expect(limiter.take('T', 2, 30_000, t3).ok).toBe(true);
    expect(limiter.take('T', 2, 30_000, t3).ok).toBe(false);
    expect(limiter.rotations).toBe(rotations + 2);
  });

  it('hands out the bucket itself, which takeFrom draws on as take does, until the generations turn', () => {
    const limiter = new PollLimiter(100);
    const b = limiter.bucket('T', 3, 1000);
    expect(limiter.bucket('T', 3, 1000)).toBe(b);
    for (let i = 0; i < BURST; i++) expect(limiter.takeFrom(b, 30_000, 1000).ok).toBe(true);
    expect(limiter.take('T', 3, 30_000, 1000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.takeFrom(b, 30_000, 1000).ok).toBe(false);
    expect(limiter.takeFrom(b, 0, 1000).ok).toBe(true); // minPollingTime 0: off
    const rotations = limiter.rotations;
    limiter.bucket('T', 3, 1000 + FULL_MS);
    expect(limiter.rotations).toBe(rotations + 1);
  });
});
