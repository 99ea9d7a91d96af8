import type { PollRecord } from '../port.js';

/** Target ids per chunk: a chunk costs 16 bytes per id it covers (a tenant's ids are mostly dense). */
const CHUNK = 256;

/** The polls of CHUNK consecutive target ids: times (NaN: none held) and addresses at `id % CHUNK`. */
interface Chunk {
  readonly at: Float64Array;
  readonly address: (string | null)[];
  held: number;
}

/**
 * The memory store's poll records of one tenant, by target id. A record costs 16 bytes in arrays of
 * fixed length (its time a float, its address a reference), where an object per record held in a Map cost
 * about 90 (the object, the boxed time and the Map's entry) per polled device.
 */
export class PollTable {
  readonly #chunks = new Map<number, Chunk>();

  /** The poll of `id` at `at`; an address of null keeps the one held (none for a new record). */
  record(id: number, at: number, address: string | null): void {
    const key = Math.floor(id / CHUNK);
    let chunk = this.#chunks.get(key);
    if (chunk === undefined) {
      chunk = { at: new Float64Array(CHUNK).fill(Number.NaN), address: new Array<string | null>(CHUNK).fill(null), held: 0 };
      this.#chunks.set(key, chunk);
    }
    const i = id % CHUNK;
    if (Number.isNaN(chunk.at[i])) {
      chunk.held++;
      chunk.address[i] = address;
    } else if (address !== null) {
      chunk.address[i] = address;
    }
    chunk.at[i] = at;
  }

  /** A copy of the record of `id`, or undefined. */
  get(id: number): PollRecord | undefined {
    const chunk = this.#chunks.get(Math.floor(id / CHUNK));
    if (chunk === undefined) return undefined;
    const i = id % CHUNK;
    const at = chunk.at[i]!;
    return Number.isNaN(at) ? undefined : { at, address: chunk.address[i] ?? null };
  }

  delete(id: number): void {
    const key = Math.floor(id / CHUNK);
    const chunk = this.#chunks.get(key);
    const i = id % CHUNK;
    if (chunk === undefined || Number.isNaN(chunk.at[i])) return;
    chunk.at[i] = Number.NaN;
    chunk.address[i] = null;
    if (--chunk.held === 0) this.#chunks.delete(key);
  }

  /** [id, time] of every record whose time lies in [min, max], in no particular order. */
  within(min: number, max: number): [number, number][] {
    const hits: [number, number][] = [];
    for (const [key, chunk] of this.#chunks) {
      for (let i = 0; i < CHUNK; i++) {
        const at = chunk.at[i]!;
        if (at >= min && at <= max) hits.push([key * CHUNK + i, at]);
      }
    }
    return hits;
  }
}
