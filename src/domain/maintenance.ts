import { CronExpressionParser } from 'cron-parser';
import type { MaintenanceWindow } from './action.js';
import { AppError } from './errors.js';
import { parseDuration } from './tenant-config.js';

/**
 * Maintenance windows of an action: a Quartz-style cron `schedule` (with seconds) starting each
 * window, a `duration` HH:mm:ss, and a fixed `timezone` offset ±hh:mm.
 * @see reference §3.16
 */
const OFFSET = /^[+-](0[0-9]|1[0-4]):[0-5][0-9]$/;

export interface WindowState {
  /** Inside a window now. */
  readonly available: boolean;
  /** Start of the next window after now, or null when the schedule has none. */
  readonly nextStart: number | null;
}

function invalid(message: string): AppError {
  return new AppError('MAINTENANCE_SCHEDULE_INVALID', message);
}

function parse(window: MaintenanceWindow, at: number) {
  return CronExpressionParser.parse(window.schedule, { currentDate: new Date(at), tz: `UTC${window.timezone}` });
}

/**
 * Checks a window given in an assignment: all three fields or none, each well-formed, and at least
 * one window that has not ended yet. Returns the normalised window or null.
 */
export function validateMaintenanceWindow(raw: Partial<MaintenanceWindow> | null | undefined, now: number): MaintenanceWindow | null {
  if (raw === null || raw === undefined) return null;
  const given = [raw.schedule, raw.duration, raw.timezone].filter((v) => v !== undefined && v !== null && v !== '');
  if (given.length === 0) return null;
  if (given.length !== 3) throw invalid('maintenanceWindow needs schedule, duration and timezone together');
  const window = { schedule: String(raw.schedule), duration: String(raw.duration), timezone: String(raw.timezone) };
  if (window.schedule.length > 128) throw invalid('maintenanceWindow.schedule is longer than 128 characters');
  if (!OFFSET.test(window.timezone)) throw invalid(`maintenanceWindow.timezone must be an offset like +02:00, got '${window.timezone}'`);
  const duration = parseDuration(window.duration);
  if (duration === undefined || duration === 0) throw invalid(`maintenanceWindow.duration must be HH:mm:ss and not zero, got '${window.duration}'`);
  let state: WindowState;
  try {
    state = windowState(window, now);
  } catch (err) {
    throw invalid(`maintenanceWindow.schedule is not a valid cron expression: ${(err as Error).message}`);
  }
  if (!state.available && state.nextStart === null) throw invalid('maintenanceWindow.schedule has no future window');
  return window;
}

/** Whether `at` lies inside a window, and when the next one starts. Throws on a bad schedule. */
export function windowState(window: MaintenanceWindow, at: number): WindowState {
  const duration = parseDuration(window.duration) ?? 0;
  const expr = parse(window, at);
  let available = false;
  if (expr.hasPrev()) {
    const prev = expr.prev().getTime();
    available = at < prev + duration;
  }
  const next = parse(window, at);
  const nextStart = next.hasNext() ? next.next().getTime() : null;
  return { available, nextStart };
}

/** True when the window has lapsed for good: no window now and none to come. */
export function windowLapsed(window: MaintenanceWindow, at: number): boolean {
  const s = windowState(window, at);
  return !s.available && s.nextStart === null;
}
