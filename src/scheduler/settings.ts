/**
 * Scheduler intervals. Defaults follow hawkBit where it has one (auto-assignment every 2 s,
 * reference §4.8); config.yaml may carry a `scheduler:` section with the same keys, and tests pass
 * overrides to `schedulerModule`.
 */
export interface SchedulerSettings {
  /** false: no loops run (runOnce still works). */
  readonly enabled: boolean;
  readonly autoAssignMs: number;
  readonly cleanupMs: number;
  readonly maintenanceMs: number;
  readonly overdueMs: number;
  /** Targets assigned per batch by auto-assignment (hawkBit: 999). */
  readonly autoAssignBatch: number;
  /**
   * The rollout engine's pass interval. hawkBit ticks every 2 s and starts at most one step per tick;
   * here a pass costs a few reads when nothing is due, so it runs often and a group starts within
   * this long of its predecessor meeting its success condition.
   */
  readonly rolloutMs: number;
  /** The rollout engine's per-tenant lease: a surviving instance takes over this long after the holder died. */
  readonly rolloutLeaseMs: number;
}

export const SCHEDULER_DEFAULTS: SchedulerSettings = {
  enabled: true,
  autoAssignMs: 2_000, // 2 seconds
  cleanupMs: 3_600_000, // 1 hour
  maintenanceMs: 60_000, // 1 minute
  overdueMs: 30_000, // 30 seconds
  autoAssignBatch: 100,
  rolloutMs: 200, // 0.2 seconds
  rolloutLeaseMs: 5_000, // 5 seconds
};

/** Settings from config (if it has a `scheduler` section) and overrides, each value checked. */
export function resolveSettings(fromConfig: unknown, overrides: Partial<SchedulerSettings> = {}): SchedulerSettings {
  const raw = { ...(isObject(fromConfig) ? fromConfig : {}), ...overrides } as Record<string, unknown>;
  const out: Record<string, unknown> = { ...SCHEDULER_DEFAULTS };
  for (const [key, fallback] of Object.entries(SCHEDULER_DEFAULTS)) {
    const v = raw[key];
    if (v === undefined) continue;
    const ok = typeof fallback === 'boolean' ? typeof v === 'boolean' : typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
    if (!ok) throw new Error(`scheduler.${key}: expected ${typeof fallback === 'boolean' ? 'a boolean' : 'a positive whole number'}, got ${JSON.stringify(v)}`);
    out[key] = v;
  }
  return out as unknown as SchedulerSettings;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
