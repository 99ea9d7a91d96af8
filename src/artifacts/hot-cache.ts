/**
 * The artifacts devices are downloading right now, kept in memory: during a rollout every device of a
 * group fetches the same few binaries, and reading each one from disk for every device (a file open,
 * a stat and a read per 64 KiB) is most of what a download costs. Each cached binary is one Buffer
 * that every response sends slices of (no copy per connection).
 *
 * Bounded by `artifacts.hotCacheBytes` (0: off), least recently used out first. A binary enters on its
 * second download (one download is not "hot"; a single device's fetch never displaces what a rollout is
 * using) and only when it fits in the bound. While it loads, downloads keep streaming from the file;
 * one load per binary however many ask. Keys are tenant and sha1: content-addressed, so the bytes of a
 * key never change; a removed binary leaves the cache with `drop` (ArtifactStorage.remove). Whether an
 * artifact may be served at all is the caller's check of its record on every request, never the cache's.
 */
import { readFile } from 'node:fs/promises';

export interface HotBinary {
  readonly bytes: Buffer;
  readonly mtimeMs: number;
}

// A miss is remembered this many times over (per key, in insertion order) to spot a second download.
const MISSES_KEPT = 4096;

export class HotArtifacts {
  readonly #capacity: number;
  /** Map order is recency: the first entry is the least recently used. */
  readonly #entries = new Map<string, HotBinary>();
  readonly #loading = new Set<string>();
  readonly #missed = new Set<string>();
  #bytes = 0;

  constructor(capacityBytes: number) {
    this.#capacity = capacityBytes;
  }

  /** The cached binary (now the most recently used), or undefined. */
  get(key: string): HotBinary | undefined {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  /**
   * A download of `path` found no cached copy. On the second one, the binary is loaded in the background
   * when it fits; `mtimeMs` is the file's as the caller saw it.
   */
  missed(key: string, path: string, size: number, mtimeMs: number): void {
    if (size > this.#capacity || this.#loading.has(key) || this.#entries.has(key)) return;
    if (!this.#missed.delete(key)) {
      if (this.#missed.size >= MISSES_KEPT) this.#missed.delete(this.#missed.values().next().value as string);
      this.#missed.add(key);
      return;
    }
    this.#loading.add(key);
    readFile(path).then(
      (bytes) => {
        // dropped meanwhile (removed), or the file changed under us: keep nothing
        if (this.#loading.delete(key) && bytes.length === size) this.#insert(key, { bytes, mtimeMs });
      },
      () => void this.#loading.delete(key), // the download itself reports a missing file
    );
  }

  /** Forgets the binary (its file was removed); a load under way keeps nothing. */
  drop(key: string): void {
    this.#loading.delete(key);
    this.#missed.delete(key);
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes.length;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  #insert(key: string, entry: HotBinary): void {
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes + entry.bytes.length <= this.#capacity) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.bytes.length;
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes.length;
  }
}
