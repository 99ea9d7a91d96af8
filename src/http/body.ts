/**
 * Request bodies read from uWS `onData`. uWS hands each chunk in a buffer it reuses (and neuters
 * when the callback returns), so every chunk is copied. Both readers enforce a byte limit and tell
 * the server the moment it is crossed, so it can answer 413 and close without reading the rest.
 */
import { AppError } from '../domain/errors.js';

function copyChunk(chunk: ArrayBuffer): Buffer {
  return Buffer.copyBytesFrom(new Uint8Array(chunk));
}

export function tooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`);
}

export class AbortedError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'AbortedError';
  }
}

/** The whole body in memory (JSON and buffer routes). */
export class BufferBody {
  complete = false;
  readonly promise: Promise<Buffer>;
  #resolve!: (body: Buffer) => void;
  #reject!: (err: Error) => void;
  #chunks: Buffer[] = [];
  #size = 0;
  #failed = false;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: (err: AppError) => void,
  ) {
    this.promise = new Promise<Buffer>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.promise.catch(() => undefined); // the pipeline may not be awaiting yet; it sees the rejection later
  }

  onData(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.#failed) return;
    this.#size += chunk.byteLength;
    if (this.#size > this.limit) {
      const err = tooLarge(this.limit);
      this.fail(err);
      this.onOverflow(err);
      return;
    }
    if (chunk.byteLength > 0) this.#chunks.push(copyChunk(chunk));
    if (isLast) {
      this.complete = true;
      const body = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks, this.#size);
      this.#chunks = [];
      this.#resolve(body);
    }
  }

  fail(err: Error): void {
    if (this.#failed || this.complete) return;
    this.#failed = true;
    this.#chunks = [];
    this.#reject(err);
  }
}

export interface Throttle {
  pause(): void;
  resume(): void;
}

// Hold at most this much unread upload in memory before pausing the socket.
const HIGH_WATER = 1024 * 1024; // 1 MiB
const LOW_WATER = 256 * 1024; // 256 KiB

/** The body as an AsyncIterable with backpressure (uploads): the socket pauses while the consumer lags. */
export class UploadStream implements AsyncIterable<Buffer> {
  complete = false;
  #queue: Buffer[] = [];
  #queued = 0;
  #total = 0;
  #paused = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly throttle: Throttle,
    private readonly onOverflow: (err: AppError) => void,
  ) {}

  onData(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.#error !== undefined) return;
    this.#total += chunk.byteLength;
    if (this.#total > this.limit) {
      const err = tooLarge(this.limit);
      this.fail(err);
      this.onOverflow(err);
      return;
    }
    if (chunk.byteLength > 0) {
      this.#queue.push(copyChunk(chunk));
      this.#queued += chunk.byteLength;
    }
    if (isLast) this.complete = true;
    else if (this.#queued > HIGH_WATER && !this.#paused) {
      this.#paused = true;
      this.throttle.pause();
    }
    this.#signal();
  }

  fail(err: Error): void {
    if (this.#error !== undefined || this.complete) return;
    this.#error = err;
    this.#queue = [];
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        this.#queued -= chunk.length;
        if (this.#paused && this.#queued < LOW_WATER && this.#error === undefined) {
          this.#paused = false;
          this.throttle.resume();
        }
        yield chunk;
        continue;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.complete) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}
