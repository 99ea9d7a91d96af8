/**
 * Follows tenants' journals (Store.readJournal) for the live event streams of this process: one
 * reader per tenant that has subscribers, however many subscribers it has, so 1,000 browsers on one
 * rollout cost one store read per interval. Every instance follows the store's journal, not its own
 * commits, so a change made through any instance (or a worker thread, or on a Redis Cluster) reaches
 * every subscriber. A subscriber that resumes from an older position first catches up on its own
 * reads, then takes the shared ones; it never gets an entry twice or out of order.
 */
import type { Logger } from 'pino';
import { compareJournalIds } from '../store/journal.js';
import type { JournalEntry, Store, Tenant } from '../store/port.js';

export interface Subscriber {
  /**
   * Entries after this subscriber's position, oldest first (never empty). One read's entries go to
   * every subscriber of the tenant as the same array: derive what you send from it once (by identity).
   */
  deliver(entries: readonly JournalEntry[]): void;
  /** The journal dropped entries this subscriber had not read yet: it must start afresh (new snapshot). */
  lost(): void;
}

export interface Subscription {
  close(): void;
}

export interface HubOptions {
  /** How often a followed journal is read when it had nothing new (ms). */
  readonly intervalMs?: number;
  /** Entries per read. */
  readonly batch?: number;
  readonly log: Pick<Logger, 'warn'>;
}

interface Member {
  readonly subscriber: Subscriber;
  /** The last entry id this member got; it gets only newer ones. */
  after: string;
  /** Catching up: shared entries wait here until its own reads reach them. */
  held: JournalEntry[] | undefined;
  closed: boolean;
}

interface Follow {
  readonly tenant: Tenant;
  readonly members: Set<Member>;
  /**
   * Entries up to here were read and handed out. It starts at the first subscriber's position and
   * only moves entry by entry: jumping to the journal's end would skip what came between for members
   * still catching up.
   */
  cursor: string;
  timer: NodeJS.Timeout | undefined;
  reading: boolean;
}

/**
 * How long a follow waits after a read that took less than a batch: the base
 * interval, longer with many subscribers (1 ms each, at most 1 s). Each read that finds entries costs
 * one write per subscriber (a cork and a system call); with 1,000 subscribers on one tenant, reading
 * once a second instead of five times cuts those writes fivefold for at most 0.8 s more lag.
 */
export function readInterval(baseMs: number, subscribers: number): number {
  return Math.max(baseMs, Math.min(1000, subscribers));
}

/** Reads a catching-up subscriber tries before it is dropped (its stream ends; the client reconnects). */
const CATCH_UP_TRIES = 5;

export class EventHub {
  readonly #store: Pick<Store, 'readJournal'>;
  readonly #intervalMs: number;
  readonly #batch: number;
  readonly #log: Pick<Logger, 'warn'>;
  readonly #follows = new Map<Tenant, Follow>();
  #closed = false;

  constructor(store: Pick<Store, 'readJournal'>, options: HubOptions) {
    this.#store = store;
    this.#intervalMs = options.intervalMs ?? 200;
    this.#batch = options.batch ?? 500;
    this.#log = options.log;
  }

  /** Where the tenant's journal stands: take it before a snapshot, subscribe from it after. */
  async position(tenant: Tenant): Promise<string> {
    return (await this.#store.readJournal(tenant, undefined, 1)).last;
  }

  /** True when the journal still holds every entry after `id` (a resume from it misses nothing). */
  async holdsAfter(tenant: Tenant, id: string): Promise<boolean> {
    return !(await this.#store.readJournal(tenant, id, 1)).gap;
  }

  /** Delivers every entry after `after`, then follows. */
  subscribe(tenant: Tenant, after: string, subscriber: Subscriber): Subscription {
    if (this.#closed) throw new Error('the event hub is closed');
    let follow = this.#follows.get(tenant);
    if (follow === undefined) {
      follow = { tenant, members: new Set(), cursor: after, timer: undefined, reading: false };
      this.#follows.set(tenant, follow);
    }
    const member: Member = { subscriber, after, held: [], closed: false };
    follow.members.add(member);
    const f = follow;
    void this.#catchUp(f, member);
    if (f.timer === undefined && !f.reading) this.#schedule(f, 0);
    return {
      close: () => {
        member.closed = true;
        f.members.delete(member);
        if (f.members.size === 0 && this.#follows.get(tenant) === f) {
          clearTimeout(f.timer);
          this.#follows.delete(tenant);
        }
      },
    };
  }

  /** Subscribers of this process (all tenants). */
  get subscribers(): number {
    let n = 0;
    for (const f of this.#follows.values()) n += f.members.size;
    return n;
  }

  close(): void {
    this.#closed = true;
    for (const f of this.#follows.values()) clearTimeout(f.timer);
    this.#follows.clear();
  }

  /**
   * A member's own reads from its position until it reaches what the shared reads handed out. A failed
   * read is tried again (the store may be busy or failing over) before the member is given up.
   */
  async #catchUp(f: Follow, m: Member): Promise<void> {
    let failures = 0;
    for (;;) {
      if (compareJournalIds(m.after, f.cursor) >= 0) break;
      let read;
      try {
        read = await this.#store.readJournal(f.tenant, m.after, this.#batch);
      } catch (err) {
        if (m.closed) return;
        if (++failures >= CATCH_UP_TRIES) {
          this.#log.warn({ err, tenant: f.tenant }, 'live events: reading the journal failed; the subscriber is dropped');
          return void this.#lose(f, m);
        }
        await new Promise((r) => setTimeout(r, Math.max(this.#intervalMs, 250) * failures));
        continue;
      }
      if (m.closed) return;
      if (read.gap) return void this.#lose(f, m);
      this.#hand(m, read.entries);
      // the journal's end as of this read: whatever the shared reads take after it waits in `held`
      if (read.entries.length < this.#batch) break;
    }
    const held = m.held ?? [];
    m.held = undefined;
    this.#hand(m, held);
  }

  #schedule(f: Follow, ms: number): void {
    if (this.#closed || this.#follows.get(f.tenant) !== f) return;
    f.timer = setTimeout(() => void this.#read(f), ms);
  }

  async #read(f: Follow): Promise<void> {
    f.timer = undefined;
    f.reading = true;
    let next = readInterval(this.#intervalMs, f.members.size);
    try {
      const read = await this.#store.readJournal(f.tenant, f.cursor, this.#batch);
      if (read.gap) {
        // this process fell behind the journal's length: everyone starts afresh
        for (const m of [...f.members]) this.#lose(f, m);
        f.cursor = read.last;
      } else if (read.entries.length > 0) {
        for (const m of f.members) {
          if (m.held !== undefined) m.held.push(...read.entries);
          else this.#hand(m, read.entries);
        }
        f.cursor = (read.entries[read.entries.length - 1] as JournalEntry).id;
        if (read.entries.length === this.#batch) next = 0;
      }
    } catch (err) {
      this.#log.warn({ err, tenant: f.tenant }, 'live events: reading the journal failed; trying again');
      next = Math.max(this.#intervalMs, 1000);
    } finally {
      f.reading = false;
    }
    this.#schedule(f, next);
  }

  /** The entries newer than the member's position (the same array when all are: the usual case). */
  #hand(m: Member, entries: readonly JournalEntry[]): void {
    if (m.closed || entries.length === 0) return;
    let from = 0;
    while (from < entries.length && compareJournalIds((entries[from] as JournalEntry).id, m.after) <= 0) from++;
    if (from === entries.length) return;
    m.after = (entries[entries.length - 1] as JournalEntry).id;
    m.subscriber.deliver(from === 0 ? entries : entries.slice(from));
  }

  #lose(f: Follow, m: Member): void {
    if (m.closed) return;
    m.closed = true;
    f.members.delete(m);
    m.subscriber.lost();
  }
}
