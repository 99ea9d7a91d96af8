import type { IdPage } from '../port.js';

/** Entries per block at most: a move or removal shifts at most this many, not the whole set. */
const BLOCK = 1024;

/** A run of entries in (score, id) order, in two parallel arrays. */
interface Block {
  ids: number[];
  scores: number[];
}

/**
 * Ids kept in (score, id) order: the in-process twin of a Redis sorted set. Ties on the score are
 * ordered as Redis orders members, by the id's decimal string, so both adapters page identically.
 * The entries sit in consecutive blocks of at most BLOCK, so adding, moving or removing an id costs
 * a search and a shift within one block (a status index of 100,000 targets, from which registration
 * removes them one by one, used to shift the whole array each time). Ids mostly arrive in ascending
 * order (new records), which appends.
 */
export class SortedIds {
  readonly #blocks: Block[] = [];
  #size = 0;
  /**
   * The score of each id whose score is not the id itself. An index ordered by id (the default score, and
   * always so for the list of a kind's ids) keeps no entry per id: its score is found in the blocks.
   */
  readonly #otherScore = new Map<number, number>();

  get size(): number {
    return this.#size;
  }

  /** Adds `id`, or moves it to `score`. */
  add(id: number, score: number): void {
    const old = this.#scoreOf(id);
    if (old === score) return;
    if (old !== undefined) this.#delete(old, id);
    if (score === id) this.#otherScore.delete(id);
    else this.#otherScore.set(id, score);
    this.#insert(score, id);
  }

  remove(id: number): boolean {
    const old = this.#scoreOf(id);
    if (old === undefined) return false;
    this.#otherScore.delete(id);
    this.#delete(old, id);
    return true;
  }

  /** The score `id` is held under, or undefined when it is not held. */
  #scoreOf(id: number): number | undefined {
    const other = this.#otherScore.get(id);
    if (other !== undefined) return other;
    const b = this.#blocks[this.#blockOf(id, id)];
    if (b === undefined) return undefined;
    const i = lowerBound(b, id, id);
    return b.ids[i] === id && b.scores[i] === id ? id : undefined;
  }

  /** Ids by rank: positions [offset, offset + limit) in ascending or descending order. */
  page(offset: number, limit: number, desc: boolean): IdPage {
    return { ids: this.#slice(0, this.#size, offset, limit, desc), total: this.#size };
  }

  /** Ids whose score lies in [min, max], paged within that range. */
  range(min: number, max: number, offset: number, limit: number, desc: boolean): IdPage {
    const lo = this.#firstScore(min, false);
    const hi = Math.max(lo, this.#firstScore(max, true));
    return { ids: this.#slice(lo, hi, offset, limit, desc), total: hi - lo };
  }

  /** Ranks [lo, hi) paged: from lo + offset upwards, or from hi - 1 - offset downwards. */
  #slice(lo: number, hi: number, offset: number, limit: number, desc: boolean): number[] {
    const from = desc ? Math.max(lo, hi - offset - limit) : Math.min(hi, lo + offset);
    const to = desc ? Math.max(lo, hi - offset) : Math.min(hi, lo + offset + limit);
    const out: number[] = [];
    let start = 0;
    for (const b of this.#blocks) {
      const end = start + b.ids.length;
      if (end > from && start < to) {
        for (let i = Math.max(from, start) - start; i < Math.min(to, end) - start; i++) out.push(b.ids[i]!);
      }
      if (end >= to) break;
      start = end;
    }
    return desc ? out.reverse() : out;
  }

  #insert(score: number, id: number): void {
    this.#size++;
    const blocks = this.#blocks;
    const last = blocks[blocks.length - 1];
    if (last === undefined) {
      blocks.push({ ids: [id], scores: [score] });
      return;
    }
    const n = last.ids.length;
    if (less(last.scores[n - 1]!, last.ids[n - 1]!, score, id)) {
      // the common case: after every entry
      if (n < BLOCK) {
        last.ids.push(id);
        last.scores.push(score);
      } else {
        blocks.push({ ids: [id], scores: [score] });
      }
      return;
    }
    const at = this.#blockOf(score, id);
    const b = blocks[at]!;
    const i = lowerBound(b, score, id);
    b.ids.splice(i, 0, id);
    b.scores.splice(i, 0, score);
    if (b.ids.length > BLOCK) {
      const half = b.ids.length >>> 1;
      blocks.splice(at + 1, 0, { ids: b.ids.splice(half), scores: b.scores.splice(half) });
    }
  }

  #delete(score: number, id: number): void {
    const at = this.#blockOf(score, id);
    const b = this.#blocks[at];
    if (b === undefined) return;
    const i = lowerBound(b, score, id);
    if (b.ids[i] !== id) return;
    this.#size--;
    b.ids.splice(i, 1);
    b.scores.splice(i, 1);
    if (b.ids.length === 0) this.#blocks.splice(at, 1);
  }

  /** The first block whose last entry is not ordered before (score, id); the number of blocks when none. */
  #blockOf(score: number, id: number): number {
    const blocks = this.#blocks;
    return firstNotBefore(blocks.length, (i) => {
      const b = blocks[i]!;
      const last = b.ids.length - 1;
      return less(b.scores[last]!, b.ids[last]!, score, id);
    });
  }

  /** Rank of the first entry whose score is >= bound (or > bound when `after`). */
  #firstScore(bound: number, after: boolean): number {
    const before = (s: number): boolean => s < bound || (after && s === bound);
    let rank = 0;
    for (const b of this.#blocks) {
      const n = b.scores.length;
      if (before(b.scores[n - 1]!)) {
        rank += n;
        continue;
      }
      return rank + firstNotBefore(n, (i) => before(b.scores[i]!));
    }
    return rank;
  }
}

/** First position in `b` not ordered before (score, id). */
function lowerBound(b: Block, score: number, id: number): number {
  return firstNotBefore(b.ids.length, (i) => less(b.scores[i]!, b.ids[i]!, score, id));
}

/** The first of 0..n-1 for which `before` is false, or n (binary search: `before` holds for a prefix). */
function firstNotBefore(n: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function less(s1: number, id1: number, s2: number, id2: number): boolean {
  if (s1 !== s2) return s1 < s2;
  return id1 !== id2 && String(id1) < String(id2);
}
