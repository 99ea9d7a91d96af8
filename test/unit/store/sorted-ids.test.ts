import { describe, expect, it } from 'vitest';
import { SortedIds } from '../../../src/store/memory/sorted-ids.js';

/** The order a Redis sorted set keeps: by score, ties by the member's decimal string. */
const order = (a: [number, number], b: [number, number]): number =>
  a[1] - b[1] || (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0);

/** The plain model: every (id, score) in a Map, sorted on each read. */
class Model {
  readonly scores = new Map<number, number>();
  sorted(): number[] {
    return [...this.scores].sort(order).map(([id]) => id);
  }
  page(offset: number, limit: number, desc: boolean): number[] {
    const all = this.sorted();
    if (desc) all.reverse();
    return all.slice(offset, offset + limit);
  }
  range(min: number, max: number, offset: number, limit: number, desc: boolean): { ids: number[]; total: number } {
    const all = [...this.scores].sort(order).filter(([, s]) => s >= min && s <= max).map(([id]) => id);
    if (desc) all.reverse();
    return { ids: all.slice(offset, offset + limit), total: all.length };
  }
}

/** A seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('SortedIds', () => {
  it('orders by score, ties by the id as a string (as Redis orders members)', () => {
    const ids = new SortedIds();
    for (const id of [10, 9, 100, 2]) ids.add(id, 1);
    ids.add(7, 0);
    expect(ids.page(0, 10, false)).toEqual({ ids: [7, 10, 100, 2, 9], total: 5 });
    expect(ids.page(1, 2, true)).toEqual({ ids: [2, 100], total: 5 });
    expect(ids.range(1, 1, 1, 10, false)).toEqual({ ids: [100, 2, 9], total: 4 });
    expect(ids.remove(100)).toBe(true);
    expect(ids.remove(100)).toBe(false);
    expect(ids.size).toBe(4);
  });

  // thousands of entries: blocks split, shrink and vanish; every read agrees with the model
  it.each([1, 2, 3])('agrees with a plain sorted list through random adds, moves and removals (seed %i)', (seed) => {
    const next = random(seed);
    const int = (n: number): number => Math.floor(next() * n);
    const ids = new SortedIds();
    const model = new Model();
    for (let step = 0; step < 20_000; step++) {
      const id = 1 + int(6000);
      const r = next();
      if (r < 0.55) {
        const score = step < 8000 && r < 0.3 ? id : int(500); // ascending appends first, then many ties
        ids.add(id, score);
        model.scores.set(id, score);
      } else {
        expect(ids.remove(id)).toBe(model.scores.delete(id));
      }
      if (step % 997 === 0 || step === 19_999) {
        expect(ids.size).toBe(model.scores.size);
        expect(ids.page(0, model.scores.size + 1, false).ids).toEqual(model.sorted());
        const [offset, limit, desc] = [int(model.scores.size + 10), 1 + int(300), next() < 0.5];
        expect(ids.page(offset, limit, desc)).toEqual({ ids: model.page(offset, limit, desc), total: model.scores.size });
        const min = int(6000);
        const max = min + int(3000);
        const [from, count] = [int(50), 1 + int(200)];
        expect(ids.range(min, max, from, count, desc)).toEqual(model.range(min, max, from, count, desc));
      }
    }
  });
});
