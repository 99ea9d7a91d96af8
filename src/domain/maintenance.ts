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

/**
 * Quartz allows a 7th field, the year (`*`, `2027`, `2026-2028`, `2026,2028`); cron-parser does not,
 * so it is split off here and applied as a filter on the occurrences.
 */
interface Schedule {
  readonly cron: string;
  readonly years: ((year: number) => boolean) | undefined;
  readonly firstYear: number;
  readonly lastYear: number;
}

function splitYear(schedule: string): Schedule {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 7) return { cron: schedule, years: undefined, firstYear: -Infinity, lastYear: Infinity };
  const year = fields[6]!;
  const cron = fields.slice(0, 6).join(' ');
  if (year === '*' || year === '?') return { cron, years: undefined, firstYear: -Infinity, lastYear: Infinity };
  const ranges = year.split(',').map((part) => {
    const m = /^(\d{4})(?:-(\d{4}))?$/.exec(part);
    if (!m) throw new Error(`year field '${year}' must be years or year ranges`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new Error(`year range '${part}' ends before it starts`);
    return [from, to] as const;
  });
  return {
    cron,
    years: (y) => ranges.some(([a, b]) => y >= a && y <= b),
    firstYear: Math.min(...ranges.map(([a]) => a)),
    lastYear: Math.max(...ranges.map(([, b]) => b)),
  };
}

const MAX_STEPS = 5000;

function parse(schedule: Schedule, window: MaintenanceWindow, at: number) {
  return CronExpressionParser.parse(schedule.cron, { currentDate: new Date(at), tz: `UTC${window.timezone}` });
}

/** The latest window start at or before `at` in an allowed year, or undefined. */
function previousStart(schedule: Schedule, window: MaintenanceWindow, at: number): number | undefined {
  const expr = parse(schedule, window, at);
  for (let i = 0; i < MAX_STEPS && expr.hasPrev(); i++) {
    const t = expr.prev();
    const year = t.getUTCFullYear();
    if (year < schedule.firstYear - 1) return undefined;
    if (!schedule.years || schedule.years(year)) return t.getTime();
  }
  return undefined;
}

/** The next window start after `at` in an allowed year, or null when there is none. */
function nextStart(schedule: Schedule, window: MaintenanceWindow, at: number): number | null {
  const expr = parse(schedule, window, at);
  for (let i = 0; i < MAX_STEPS && expr.hasNext(); i++) {
    const t = expr.next();
    const year = t.getUTCFullYear();
    if (year > schedule.lastYear + 1) return null;
    if (!schedule.years || schedule.years(year)) return t.getTime();
  }
  return null;
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
  const schedule = splitYear(window.schedule);
  const prev = previousStart(schedule, window, at);
  return { available: prev !== undefined && at < prev + duration, nextStart: nextStart(schedule, window, at) };
}

/** True when the window has lapsed for good: no window now and none to come. */
export function windowLapsed(window: MaintenanceWindow, at: number): boolean {
  const s = windowState(window, at);
  return !s.available && s.nextStart === null;
}
