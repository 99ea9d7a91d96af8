import { describe, expect, it } from 'vitest';
import { resolveSettings, SCHEDULER_DEFAULTS } from '../../../src/scheduler/settings.js';

describe('scheduler settings', () => {
  it('defaults when config has no scheduler section', () => {
    expect(resolveSettings(undefined)).toEqual(SCHEDULER_DEFAULTS);
    expect(SCHEDULER_DEFAULTS.autoAssignMs).toBe(2000);
  });

  it('config values, then overrides, win over the defaults', () => {
    const s = resolveSettings({ autoAssignMs: 500, cleanupMs: 1000 }, { cleanupMs: 5, enabled: false });
    expect(s).toMatchObject({ autoAssignMs: 500, cleanupMs: 5, enabled: false, overdueMs: SCHEDULER_DEFAULTS.overdueMs });
  });

  it.each([
    [{ autoAssignMs: 0 }, 'scheduler.autoAssignMs'],
    [{ autoAssignMs: 1.5 }, 'scheduler.autoAssignMs'],
    [{ overdueMs: '30s' }, 'scheduler.overdueMs'],
    [{ enabled: 'yes' }, 'scheduler.enabled'],
  ])('refuses %j naming the key', (bad, key) => {
    expect(() => resolveSettings(bad)).toThrow(key);
  });
});
