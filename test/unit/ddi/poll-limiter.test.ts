import { describe, expect, it } from 'vitest';
import { BURST, PollLimiter } from '../../../src/ddi/poll-limiter.js';

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
});
