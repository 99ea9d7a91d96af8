import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { paced, rateOf, releaseBudget, releaseControlsOf } from '../../../src/domain/rollout-release.js';

const none = { running: 0, finished: 0, error: 0, cancelled: 0 };

describe('release controls', () => {
  it('none given: undefined, and the rollout is not paced', () => {
    expect(releaseControlsOf({}, { now: 0 })).toBeUndefined();
    expect(releaseControlsOf({ maxInFlight: null, ramp: null }, { now: 0 })).toBeUndefined();
    expect(paced(undefined)).toBe(false);
    expect(paced({ maxInFlight: 3 })).toBe(true);
  });

  it.each([
    [{ maxInFlight: 1.5 }, 'maxInFlight'],
    [{ ramp: { maxPerMinute: 100_001 } }, 'maxPerMinute'],
    [{ ramp: { exponential: { baseRatePerMinute: 5, incrementFactor: 2, increaseAfter: { notified: 1, succeeded: 1 } } } }, 'exactly one'],
  ])('refuses %j naming %s', (input, field) => {
    expect(() => releaseControlsOf(input, { now: 0 })).toThrowError(AppError);
    expect(() => releaseControlsOf(input, { now: 0 })).toThrowError(field);
  });

  it('exponential: the rate grows by the factor per criterion reached, up to 100000 a minute', () => {
    const ramp = { exponential: { baseRatePerMinute: 10, incrementFactor: 1.5, increaseAfter: { succeeded: 4 } } };
    expect(rateOf(ramp, none)).toBe(10);
    expect(rateOf(ramp, { ...none, finished: 3, running: 100 })).toBe(10);
    expect(rateOf(ramp, { ...none, finished: 8 })).toBe(22.5);
    expect(rateOf(ramp, { ...none, finished: 400 })).toBe(100_000);
  });

  it('maxInFlight caps what runs; the ramp paces on a virtual clock', () => {
    expect(releaseBudget({ maxInFlight: 5 }, undefined, { ...none, running: 3 }, 10, 0).count).toBe(2);
    expect(releaseBudget({ maxInFlight: 5 }, undefined, { ...none, running: 7 }, 10, 0).count).toBe(0);
    const ramp = { ramp: { maxPerMinute: 600 } }; // one per 100 ms
    const first = releaseBudget(ramp, undefined, none, 50, 1_000);
    expect(first.count).toBe(1);
    expect(first.nextAt(1)).toBe(1_100);
    const later = releaseBudget(ramp, { nextAt: 1_100, after: 0 }, none, 50, 1_350);
    expect(later.count).toBe(3); // due at 1100, 1200, 1300
    expect(later.nextAt(3)).toBe(1_400);
    expect(releaseBudget(ramp, { nextAt: 1_100, after: 0 }, none, 2, 1_350).count).toBe(2); // only 2 wait
    expect(releaseBudget(ramp, { nextAt: 1_400, after: 0 }, none, 50, 1_350).count).toBe(0);
  });
});
