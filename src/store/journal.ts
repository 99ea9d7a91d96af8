/**
 * The tenant journal's ids and bounds, the same on every adapter: an id is `<ms>-<seq>` as Redis
 * stream ids are, so ids compare by their two numbers, and an id's time is when it was committed.
 */
import { checkCount, checkTenant } from './checks.js';
import type { EffectMessage, Tenant } from './port.js';

/** Entries (commits) each tenant's journal keeps; older ones are dropped as new ones come. */
export const JOURNAL_LENGTH = 10_000;

const ID = /^(0|[1-9][0-9]{0,15})-(0|[1-9][0-9]{0,15})$/;

/** The two numbers of a journal id, or undefined when the text is not one. */
export function parseJournalId(id: string): readonly [number, number] | undefined {
  const m = ID.exec(id);
  if (m === null) return undefined;
  const ms = Number(m[1]);
  const seq = Number(m[2]);
  return Number.isSafeInteger(ms) && Number.isSafeInteger(seq) ? [ms, seq] : undefined;
}

/** Negative, zero or positive as `a` comes before, is, or comes after `b` (both valid ids). */
export function compareJournalIds(a: string, b: string): number {
  const [am, as] = parseJournalId(a) ?? [0, 0];
  const [bm, bs] = parseJournalId(b) ?? [0, 0];
  return am === bm ? as - bs : am - bm;
}

/**
 * Whether a reader after `after` missed entries: some were dropped and `after` lies before the oldest
 * entry held. A reader at the very last dropped entry is told so too (it then starts afresh): the
 * stores know which entries are held, not which id came just before them.
 */
export function journalGap(after: string | undefined, oldest: string, dropped: boolean): boolean {
  return after !== undefined && dropped && compareJournalIds(after, oldest) < 0;
}

export function checkJournalRead(tenant: Tenant, after: string | undefined, count: number): void {
  checkTenant(tenant);
  checkCount(count);
  if (after !== undefined && parseJournalId(after) === undefined) throw new TypeError(`not a journal id: ${JSON.stringify(after)}`);
}

/** The events of a commit's journal entry as JSON text; undefined when there are none. */
export function journalJson(events: readonly EffectMessage[] | undefined): string | undefined {
  if (events === undefined || events.length === 0) return undefined;
  for (const e of events) if (typeof e?.type !== 'string' || e.type.length === 0) throw new TypeError('a journal event needs a non-empty string type');
  const json = JSON.stringify(events);
  if (json === undefined) throw new TypeError('journal events have no JSON form');
  return json;
}
