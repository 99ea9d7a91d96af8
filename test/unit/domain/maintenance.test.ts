import { describe, expect, it } from 'vitest';
import { validateMaintenanceWindow, windowLapsed, windowState } from '../../../src/domain/maintenance.js';

const at = Date.UTC(2026, 10, 21, 10, 0, 0); // Saturday 2026-11-21 10:00 UTC
const w = (schedule: string, duration = '01:00:00', timezone = '+00:00') => ({ schedule, duration, timezone });

describe('maintenance windows (Quartz cron, duration, fixed offset)', () => {
  it('is available inside a window and names the next start', () => {
    const s = windowState(w('0 30 9 * * ?'), at);
    expect(s.available).toBe(true);
    expect(s.nextStart).toBe(Date.UTC(2026, 10, 22, 9, 30));
  });
  it('is unavailable between windows', () => {
    expect(windowState(w('0 0 3 * * ?'), at).available).toBe(false);
  });
  it('applies the timezone offset', () => {
    // 11:30 at +02:00 is 09:30 UTC: inside a one-hour window at 10:00 UTC
    expect(windowState(w('0 30 11 * * ?', '01:00:00', '+02:00'), at).available).toBe(true);
  });
  it('understands the Quartz year field: a past year has lapsed for good', () => {
    expect(windowLapsed(w('0 0 3 * * ? 2025'), at)).toBe(true);
    expect(windowLapsed(w('0 0 3 * * ? 2026-2027'), at)).toBe(false);
    expect(windowState(w('0 0 3 1 1 ? 2028'), at).nextStart).toBe(Date.UTC(2028, 0, 1, 3));
  });
  it.each([
    [{ schedule: '0 0 3 * * ?', duration: '01:00:00' }, 'together'],
    [w('0 0 3 * * ?', '01:00:00', 'Europe/Berlin'), 'offset'],
    [w('0 0 3 * * ?', '00:00:00'), 'not zero'],
    [w('not a cron'), 'not a valid cron'],
    [w('0 0 0 31 2 ?'), 'not a valid cron'],
    [w('0 0 3 * * ? 2020'), 'no future window'],
  ])('refuses %j (%s)', (raw, message) => {
    expect(() => validateMaintenanceWindow(raw, at)).toThrow(message);
  });
  it('accepts no window at all', () => {
    expect(validateMaintenanceWindow(undefined, at)).toBeNull();
    expect(validateMaintenanceWindow({}, at)).toBeNull();
  });
});
