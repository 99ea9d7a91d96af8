/**
 * Scheduler intervals: config.yaml's `scheduler:` section, checked and defaulted by the config schema
 * (src/config/schema.ts, the one definition of the keys and their defaults); tests pass overrides to
 * `schedulerModule`.
 */
import type { Config } from '../config/index.js';

export type SchedulerSettings = Config['scheduler'];

/** The config's settings with a test's overrides on top. */
export function resolveSettings(fromConfig: SchedulerSettings, overrides: Partial<SchedulerSettings> = {}): SchedulerSettings {
  return { ...fromConfig, ...overrides };
}
