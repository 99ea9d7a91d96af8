import type { IdPage } from '../port.js';

/**
 * Ids kept in (score, id) order in two parallel arrays: the in-process twin of a Redis sorted set.
 * Ties on the score are ordered as Redis orders members, by the id's decimal string, so both
 * adapters page identically. Ids mostly arrive in ascending order (new records), which appends.
 */
export class SortedIds {
  readonly #ids: number[] = [];
  readonly #scores: number[] = [];
  readonly #scoreOf = new Map<number, number>();

  get size(): number {
    return this.#ids.length;
  }

  /** Adds `id`, or moves it to `score`. */
  add(id: number, score: number): void {
    const old = this.#scoreOf.get(id);
    if (old === score) return;
    if (old !== undefined) this.#removeAt(this.#lowerBound(old, id));
    this.#scoreOf.set(id, score);
    const n = this.#ids.length;
    if (n === 0 || less(this.#scores[n - 1]!, this.#ids[n - 1]!, score, id)) {
      this.#ids.push(id);
      this.#scores.push(score);
      return;
    }
    const at = this.#lowerBound(score, id);
    this.#ids.splice(at, 0, id);
    this.#scores.splice(at, 0, score);
  }

  remove(id: number): boolean {
    const old = this.#scoreOf.get(id);
    if (old === undefined) return false;
    this.#scoreOf.delete(id);
    this.#removeAt(this.#lowerBound(old, id));
    return true;
  }

  /** Ids by rank: positions [offset, offset + limit) in ascending or descending order. */
  page(offset: number, limit: number, desc: boolean): IdPage {
    return { ids: this.#slice(0, this.#ids.length, offset, limit, desc), total: this.#ids.length };
  }

  /** Ids whose score lies in [min, max], paged within that range. */
  range(min: number, max: number, offset: number, limit: number, desc: boolean): IdPage {
    const lo = this.#firstScore(min, false);
    const hi = Math.max(lo, this.#firstScore(max, true));
    return { ids: this.#slice(lo, hi, offset, limit, desc), total: hi - lo };
  }

  #slice(lo: number, hi: number, offset: number, limit: number, desc: boolean): number[] {
    if (!desc) return this.#ids.slice(Math.min(hi, lo + offset), Math.min(hi, lo + offset + limit));
    const out: number[] = [];
    for (let i = hi - 1 - offset; i >= lo && out.length < limit; i--) out.push(this.#ids[i]!);
    return out;
  }

  #removeAt(at: number): void {
    this.#ids.splice(at, 1);
    this.#scores.splice(at, 1);
  }

  /** First position not ordered before (score, id). */
  #lowerBound(score: number, id: number): number {
    let lo = 0;
    let hi = this.#ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (less(this.#scores[mid]!, this.#ids[mid]!, score, id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose score is >= bound (or > bound when `after`). */
  #firstScore(bound: number, after: boolean): number {
    let lo = 0;
    let hi = this.#scores.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.#scores[mid]!;
      if (s < bound || (after && s === bound)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function less(s1: number, id1: number, s2: number, id2: number): boolean {
  if (s1 !== s2) return s1 < s2;
  return id1 !== id2 && String(id1) < String(id2);
}
