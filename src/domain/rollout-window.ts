import { CronExpressionParser } from 'cron-parser';
import { badRequest, type AppError } from './errors.js';

/**
 * Release windows of a rollout (issue 25): actions are released only inside one of them; outside,
 * groups and ramps wait. Each is a standard 5-field cron (minute hour day-of-month month day-of-week)
 * starting a window, its length in minutes and the time zone the cron is read in (an IANA name such
 * as Europe/Berlin, or UTC). Read with cron-parser, as maintenance windows are (maintenance.ts).
 */
export interface ReleaseWindow {
  readonly cron: string;
  readonly durationMinutes: number;
  readonly timezone: string;
}

export interface WindowInput {
  readonly cron?: string | null | undefined;
  readonly durationMinutes?: number | null | undefined;
  readonly timezone?: string | null | undefined;
}

/** The longest window: a week. */
const MAX_DURATION_MINUTES = 10_080;
const MINUTE = 60_000;

const invalid = (message: string): AppError => badRequest(message);

function zoneOk(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** One window of a request, checked (400 rest.body.notReadable naming the field). */
export function windowOf(w: WindowInput, at: string): ReleaseWindow {
  const cron = w.cron?.trim() ?? '';
  if (cron.split(/\s+/).length !== 5) throw invalid(`${at}.cron: a cron of 5 fields (minute hour day month weekday), got '${cron}'`);
  const timezone = w.timezone?.trim() || 'UTC';
  if (!zoneOk(timezone)) throw invalid(`${at}.timezone: an IANA time zone such as Europe/Berlin, got '${timezone}'`);
  try {
    CronExpressionParser.parse(cron, { tz: timezone, strict: false });
  } catch (err) {
    throw invalid(`${at}.cron: not a valid cron expression: ${(err as Error).message}`);
  }
  const d = w.durationMinutes;
  if (d == null || !Number.isInteger(d) || d < 1 || d > MAX_DURATION_MINUTES) {
    throw invalid(`${at}.durationMinutes: must be a whole number 1..${MAX_DURATION_MINUTES}, got ${d ?? 'none'}`);
  }
  return { cron, durationMinutes: d, timezone };
}

/** Whether `now` lies inside one of the windows (the latest start at or before it, plus its duration). */
export function insideWindow(windows: readonly ReleaseWindow[], now: number): boolean {
  return windows.some((w) => {
    const expr = CronExpressionParser.parse(w.cron, { currentDate: new Date(now + 1), tz: w.timezone });
    if (!expr.hasPrev()) return false;
    return now < expr.prev().getTime() + w.durationMinutes * MINUTE;
  });
}
