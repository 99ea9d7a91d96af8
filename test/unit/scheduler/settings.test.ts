import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { resolveSettings } from '../../../src/scheduler/settings.js';

describe('scheduler settings', () => {
  it('defaults from the config schema when config has no scheduler section', () => {
    const s = parseConfig({}).scheduler;
    expect(s).toEqual({
      enabled: true, autoAssignMs: 2000, cleanupMs: 3_600_000, maintenanceMs: 60_000, overdueMs: 30_000,
      autoAssignBatch: 100, rolloutMs: 200, rolloutLeaseMs: 5000,
    });
  });

  it('config values, then overrides, win over the defaults', () => {
    const fromConfig = parseConfig({ scheduler: { autoAssignMs: 500, cleanupMs: 1000 } }).scheduler;
    const s = resolveSettings(fromConfig, { cleanupMs: 5, enabled: false });
    expect(s).toMatchObject({ autoAssignMs: 500, cleanupMs: 5, enabled: false, overdueMs: 30_000 });
  });

  it.each([
    [{ autoAssignMs: 0 }, 'scheduler.autoAssignMs'],
    [{ autoAssignMs: 1.5 }, 'scheduler.autoAssignMs'],
    [{ overdueMs: '30s' }, 'scheduler.overdueMs'],
    [{ enabled: 'yes' }, 'scheduler.enabled'],
    [{ everyMs: 5 }, 'scheduler'],
  ])('refuses %j naming the key', (bad, key) => {
    expect(() => parseConfig({ scheduler: bad })).toThrow(key);
  });
});

describe('quotas', () => {
  it('defaults every quota, takes positive whole numbers, and refuses anything else naming the key', () => {
    expect(parseConfig({}).quotas.maxTargetsPerRolloutGroup).toBe(20_000);
    const quotas = parseConfig({ quotas: { maxActionsPerTarget: 10 } }).quotas;
    expect(quotas).toMatchObject({ maxActionsPerTarget: 10, maxArtifactsPerSoftwareModule: 50 });
    expect(() => parseConfig({ quotas: { maxTargets: 5 } })).toThrow(/quotas.*unknown key: maxTargets/);
    expect(() => parseConfig({ quotas: { maxActionsPerTarget: 0 } })).toThrow('quotas.maxActionsPerTarget');
    expect(() => parseConfig({ quotas: { maxActionsPerTarget: 'many' } })).toThrow('quotas.maxActionsPerTarget');
  });
});
