/**
 * Write-behind of the last poll time and address (ARCHITECTURE.md, "The poll hot path"): a poll only
 * notes the newest poll per target in memory; every `intervalMs` the notes of each tenant go to the
 * store in ONE `recordPolls` call. A failed flush keeps its notes for the next one (newer notes win),
 * and `stop()` flushes what is left, so a graceful shutdown loses nothing.
 */
import type { Store, Tenant } from '../store/port.js';

export interface PollRecorderOptions {
  readonly store: Pick<Store, 'recordPolls'>;
  readonly intervalMs: number;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * A note as the store takes it; updated in place by newer polls, so a poll allocates nothing once noted.
 * `address` null: none read since the one the store has (a written note's address is cleared, so a note
 * kept across flushes, the lane's, sends its address once per read, not with every flush).
 */
export interface Note {
  readonly id: number;
  at: number;
  address: string | null;
}

export class PollRecorder {
  readonly #opts: PollRecorderOptions;
  #pending = new Map<Tenant, Map<number, Note>>();
  /** The notes `enqueue` took, in arrival order (a push per noted poll; the map above costs a hashed insert). */
  #queued = new Map<Tenant, Note[]>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #flushes = 0;

  constructor(options: PollRecorderOptions) {
    this.#opts = options;
  }

  record(tenant: Tenant, targetId: number, at: number, address: string | null): void {
    let polls = this.#pending.get(tenant);
    if (polls === undefined) this.#pending.set(tenant, (polls = new Map<number, Note>()));
    const prev = polls.get(targetId);
    if (prev === undefined) polls.set(targetId, { id: targetId, at, address });
    else if (prev.at <= at) {
      prev.at = at;
      prev.address = address;
    }
  }

  /**
   * A poll of a target whose note the caller keeps between flushes (the express lane's slot), put in
   * this interval's batch unless it is there: the caller updates the note in place (`at`, `address`)
   * and calls this once per interval (`flushes` tells when). Of this note and one the generic path took for
   * the target in the same interval, the newer poll is written. The note is allocated once per device,
   * not per interval.
   */
  enqueue(tenant: Tenant, note: Note): void {
    let notes = this.#queued.get(tenant);
    if (notes === undefined) this.#queued.set(tenant, (notes = []));
    notes.push(note);
  }

  /** Moves when the notes taken so far go to the store: a note given to `enqueue` is in the batch until then. */
  get flushes(): number {
    return this.#flushes;
  }

  /** A later poll of the noted target, from the same address. */
  touch(note: Note, at: number): void {
    if (note.at < at) note.at = at;
  }

  /** Polls noted but not yet written. */
  get pending(): number {
    let n = 0;
    for (const polls of this.#pending.values()) n += polls.size;
    for (const notes of this.#queued.values()) n += notes.length;
    return n;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.flush(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  /** Writes every note taken so far; flushes run one after another. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.size === 0 && this.#queued.size === 0) return;
    const batch = this.#pending;
    const queued = this.#queued;
    this.#pending = new Map();
    this.#queued = new Map();
    this.#flushes++;
    const { store } = this.#opts;
    const tenants = new Set([...batch.keys(), ...queued.keys()]);
    await Promise.all([...tenants].map(async (tenant) => {
      const notes = merged(batch.get(tenant), queued.get(tenant));
      let failed = 0;
      let error: unknown;
      for (let i = 0; i < notes.length; i += SLICE) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve)); // requests waiting are served between slices
        const slice = notes.slice(i, i + SLICE);
        const sent = slice.map((note) => note.address);
        try {
          await store.recordPolls(tenant, slice);
          // written: cleared unless a newer address was read meanwhile (that one goes with the next flush)
          slice.forEach((note, j) => {
            if (note.address === sent[j]) note.address = null;
          });
        } catch (err) {
          error = err;
          failed += slice.length;
          for (const p of slice) this.record(tenant, p.id, p.at, p.address);
        }
      }
      if (failed > 0) this.#opts.log.warn({ err: error, tenant, polls: failed }, 'writing poll records failed; retrying with the next flush');
    }));
  }
}

/**
 * The notes of one tenant's batch: the queued ones (one per target, or a later one for a target whose
 * slot was made again: written after the earlier) and the generic path's, the newer poll per target.
 */
function merged(recorded: Map<number, Note> | undefined, queued: Note[] | undefined): Note[] {
  if (recorded === undefined) return queued ?? [];
  for (const note of queued ?? []) {
    const other = recorded.get(note.id);
    if (other === undefined || other.at <= note.at) recorded.set(note.id, note);
  }
  return [...recorded.values()];
}

/**
 * Notes per `recordPolls` call. A large fleet's flush (tens of thousands of polls a second) goes out
 * in slices with the event loop free in between, so polls arriving meanwhile do not wait for all of it
 * (p99 at half load on Redis: 14 ms as one call, 2.6 ms in slices of 1,000, 1.8 ms in slices of 250).
 */
const SLICE = 250;
