/**
 * Gathers items per key into batches for a group commit: the first item of a key waits until the end
 * of the loop turn (setImmediate), so what arrived in the same turn goes together; while a batch is
 * being flushed, new items of its key wait and go in the next one, so a batch holds what arrived
 * during the previous batch's round trips. One flush at a time per key. `flush` settles its items
 * itself (answers or fails each, also when it throws).
 */
export class GroupQueue<T> {
  readonly #queues = new Map<string, T[]>();
  readonly #flush: (key: string, batch: readonly T[]) => Promise<void>;

  constructor(flush: (key: string, batch: readonly T[]) => Promise<void>) {
    this.#flush = flush;
  }

  add(key: string, item: T): void {
    const pending = this.#queues.get(key);
    if (pending !== undefined) {
      pending.push(item);
      return;
    }
    this.#queues.set(key, [item]);
    setImmediate(() => void this.#drain(key));
  }

  async #drain(key: string): Promise<void> {
    for (;;) {
      const batch = this.#queues.get(key) ?? [];
      if (batch.length === 0) {
        this.#queues.delete(key);
        return;
      }
      this.#queues.set(key, []);
      try {
        await this.#flush(key, batch);
      } catch {
        // flush failed its items itself; the next batch goes on
      }
    }
  }
}
