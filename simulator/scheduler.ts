/**
 * One timer for the whole fleet: a binary min-heap of entries ordered by due time, and a single
 * setTimeout armed for the earliest. 100,000 devices cost 100,000 heap slots, not 100,000 timers.
 * An entry is in the heap at most once: a device is taken out when due and put back when its work
 * is done, so there is no decrease-key.
 */
export interface Timed { due: number }

export class Scheduler<T extends Timed> {
  private readonly heap: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(private readonly fire: (item: T, now: number) => void, private readonly now: () => number = Date.now) {}

  get size(): number { return this.heap.length; }

  at(due: number, item: T): void {
    if (this.stopped) return;
    item.due = due;
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.due <= due) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = item;
    if (due < this.armedFor) this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap.length = 0;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const first = this.heap[0];
    if (!first || this.stopped) { this.timer = undefined; this.armedFor = Number.POSITIVE_INFINITY; return; }
    this.armedFor = first.due;
    this.timer = setTimeout(() => this.run(), Math.max(0, first.due - this.now()));
  }

  private run(): void {
    this.timer = undefined;
    const now = this.now();
    // fire everything due; at most a batch per turn so a burst does not starve I/O
    for (let n = 0; n < 5000 && this.heap.length > 0 && this.heap[0]!.due <= now; n++) this.fire(this.pop(), now);
    this.armedFor = Number.POSITIVE_INFINITY;
    this.arm();
  }

  private pop(): T {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && h[r]!.due < h[l]!.due ? r : l;
        if (h[c]!.due >= last.due) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
