/**
 * Streams an upload into a new file with backpressure: the next chunk is pulled only while at most
 * one batched write is in flight, so a slow disk slows the socket (the HTTP layer pauses it) instead
 * of filling memory. Enforces the size limit before writing past it and stops when `signal` aborts.
 * The caller owns the file: it is left in place on failure for the caller to remove.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { AppError } from '../domain/errors.js';

export interface WriteTempOptions {
  readonly maxBytes: number;
  /** The error for an upload over maxBytes. */
  readonly tooLarge: () => AppError;
  readonly signal?: AbortSignal | undefined;
}

// Writes are batched up to this size: a write per uWS chunk (often 16-64 KiB) costs a libuv round trip each.
const BATCH_BYTES = 1024 * 1024; // 1 MiB

export function uploadAborted(cause?: unknown): AppError {
  return new AppError('UPLOAD_FAILED', 'the upload was aborted before it completed', { cause });
}

/** Returns the number of bytes written. */
export async function writeTemp(path: string, chunks: AsyncIterable<Uint8Array>, opts: WriteTempOptions): Promise<number> {
  const { maxBytes, signal } = opts;
  if (signal?.aborted === true) throw uploadAborted(signal.reason);
  const iterator = chunks[Symbol.asyncIterator]();
  const handle = await open(path, 'wx');
  let rejectPending: ((err: unknown) => void) | undefined;
  const onAbort = (): void => rejectPending?.(uploadAborted(signal?.reason));
  signal?.addEventListener('abort', onAbort, { once: true });
  let inflight: Promise<void> | undefined;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let size = 0;
  let done = false;

  const flush = async (): Promise<void> => {
    if (inflight !== undefined) {
      const previous = inflight;
      inflight = undefined;
      await previous;
    }
    if (batchBytes === 0) return;
    const data = batch.length === 1 ? (batch[0] as Uint8Array) : Buffer.concat(batch, batchBytes);
    batch = [];
    batchBytes = 0;
    inflight = writeFully(handle, data);
    inflight.catch(() => undefined); // observed by the next flush (or the cleanup below)
  };

  const next = (): Promise<IteratorResult<Uint8Array>> => {
    if (signal === undefined) return iterator.next();
    // A producer may never settle after an abort; the abort listener rejects the pending pull instead.
    return new Promise((resolve, reject) => {
      rejectPending = reject;
      iterator.next().then(resolve, reject);
    });
  };

  try {
    for (;;) {
      if (isAborted(signal)) throw uploadAborted(signal?.reason);
      let result: IteratorResult<Uint8Array>;
      try {
        result = await next();
      } catch (err) {
        throw err instanceof AppError ? err : new AppError('UPLOAD_FAILED', `the upload did not complete: ${(err as Error).message}`, { cause: err });
      } finally {
        rejectPending = undefined;
      }
      if (result.done === true) break;
      const chunk = result.value;
      if (size + chunk.length > maxBytes) throw opts.tooLarge();
      size += chunk.length;
      if (chunk.length === 0) continue;
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= BATCH_BYTES) await flush();
    }
    done = true;
    await flush();
    await inflight;
    // the content-addressed name will claim these bytes: make them durable before it exists
    await handle.datasync();
    return size;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!done) {
      // Not awaited: an async generator queues return() behind a pull that may never settle.
      try {
        Promise.resolve(iterator.return?.()).catch(() => undefined);
      } catch {
        // the producer's own cleanup failed; the upload has failed already
      }
    }
    await inflight?.catch(() => undefined);
    await handle.close();
  }
}

// a function, so the compiler does not keep the narrowing of the check at the top across awaits
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

async function writeFully(handle: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}
