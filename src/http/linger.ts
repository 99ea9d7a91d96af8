import type { HttpResponse } from 'uWebSockets.js';

/** How much of an unwanted request body is read and dropped before the reply goes out (nginx: lingering_time, lingering_timeout). */
export interface LingerLimits {
  /** Bytes read after the decision to answer. */
  readonly bytes: number;
  /** Time without data from the client. */
  readonly idleMs: number;
  /** Time in all. */
  readonly totalMs: number;
}

export const LINGER: LingerLimits = { bytes: 64 * 1024 * 1024, idleMs: 1_000, totalMs: 5_000 };

/**
 * The reply to a request whose body is still coming (over the size limit, refused before it was read,
 * or answered by a handler that did not read it). The reply closes the connection, and uWS closes at
 * once: with unread data in the socket the kernel resets the connection, and a client still writing
 * its body fails on that write (EPIPE, ECONNRESET) before it reads the reply. So the rest of the body
 * is read and dropped first, and the reply goes out when the body has ended, or, bounded as nginx's
 * lingering close is, after `bytes` more bytes, `idleMs` without data or `totalMs` in all.
 */
export class Linger {
  #done = false;
  #read = 0;
  #idle: NodeJS.Timeout | undefined;
  readonly #total: NodeJS.Timeout;

  /** `paused`: an upload paused the socket (resume() on a socket that is not paused stalls it in this uWS build). */
  constructor(
    res: HttpResponse,
    paused: boolean,
    private readonly reply: () => void,
    private readonly limits: LingerLimits = LINGER,
  ) {
    this.#total = setTimeout(() => this.#answer(), limits.totalMs);
    this.#idle = setTimeout(() => this.#answer(), limits.idleMs);
    res.onData((chunk, isLast) => this.#onData(chunk.byteLength, isLast));
    if (paused) res.resume();
  }

  /** The client went away: nothing more is written. */
  aborted(): void {
    this.#done = true;
    this.#clear();
  }

  #onData(bytes: number, isLast: boolean): void {
    if (this.#done) return;
    this.#read += bytes;
    if (isLast || this.#read > this.limits.bytes) return this.#answer();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#answer(), this.limits.idleMs);
  }

  #answer(): void {
    if (this.#done) return;
    this.#done = true;
    this.#clear();
    this.reply();
  }

  #clear(): void {
    clearTimeout(this.#idle);
    clearTimeout(this.#total);
  }
}
