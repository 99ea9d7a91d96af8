import type { EffectMessage, JournalEntry, JournalRead, Tenant } from '../port.js';
import { compareJournalIds, journalGap, JOURNAL_LENGTH } from '../journal.js';

interface TenantJournal {
  /** Oldest first; `start` entries at the front are dropped (shifting an array of 10,000 per commit would cost more). */
  entries: JournalEntry[];
  start: number;
  lastMs: number;
  lastSeq: number;
  /** Entries were dropped. */
  dropped: boolean;
}

/** The memory store's tenant journals: Redis stream semantics (ids, bounded length, gap detection) in arrays. */
export class MemoryJournal {
  readonly #tenants = new Map<Tenant, TenantJournal>();

  /** Appends one entry of already-copied events (the commit made them JSON-safe). */
  append(tenant: Tenant, events: readonly EffectMessage[], now: number): void {
    let j = this.#tenants.get(tenant);
    if (j === undefined) this.#tenants.set(tenant, (j = { entries: [], start: 0, lastMs: 0, lastSeq: -1, dropped: false }));
    if (now > j.lastMs) {
      j.lastMs = now;
      j.lastSeq = 0;
    } else {
      j.lastSeq++; // same millisecond, or the clock went back: ids keep increasing, as Redis makes them
    }
    j.entries.push({ id: `${j.lastMs}-${j.lastSeq}`, events });
    if (j.entries.length - j.start > JOURNAL_LENGTH) {
      j.dropped = true;
      j.start++;
      if (j.start >= JOURNAL_LENGTH) {
        j.entries = j.entries.slice(j.start);
        j.start = 0;
      }
    }
  }

  drop(tenant: Tenant): void {
    this.#tenants.delete(tenant);
  }

  read(tenant: Tenant, after: string | undefined, count: number): JournalRead {
    const j = this.#tenants.get(tenant);
    if (j === undefined) return { entries: [], last: '0-0', gap: false };
    const last = j.entries.length > j.start ? (j.entries[j.entries.length - 1] as JournalEntry).id : '0-0';
    if (after === undefined) return { entries: [], last, gap: false };
    // binary search for the first entry after `after`
    let lo = j.start;
    let hi = j.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareJournalIds((j.entries[mid] as JournalEntry).id, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    const oldest = (j.entries[j.start])?.id ?? '0-0';
    return { entries: j.entries.slice(lo, lo + count), last, gap: journalGap(after, oldest, j.dropped) };
  }
}
