/**
 * Streams a multipart/form-data upload through busboy: the request body (`req.bodyStream`) is fed
 * in with backpressure, the part named `fileField` is handed over as a stream as soon as it starts
 * (nothing is buffered whole), other parts' fields are collected whenever they arrive, before or
 * after the file. A second file part is drained and ignored.
 */
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { AppError } from '../../domain/errors.js';
import type { Request } from '../../http/types.js';

export interface FilePart {
  readonly stream: AsyncIterable<Buffer>;
  /** The file name the client gave in the part's Content-Disposition, if any. */
  readonly filename: string | undefined;
}

export interface MultipartUpload {
  /** The file part once it starts; undefined when the body ended without one. */
  readonly file: Promise<FilePart | undefined>;
  /** Resolves when the whole body is parsed (every field is then in `fields`). */
  readonly done: Promise<void>;
  /** Plain fields seen so far (first value of a name wins). */
  readonly fields: ReadonlyMap<string, string>;
  /** Stops parsing: the file stream fails and the rest of the body is not read. */
  abort(reason: Error): void;
}

const LIMITS = { fields: 32, fieldSize: 16 * 1024, files: 8, parts: 64, headerPairs: 64 } as const;

function failed(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new AppError('UPLOAD_FAILED', `the multipart upload could not be read: ${detail}`, { cause: err });
}

export function parseMultipart(req: Request, contentType: string, fileField: string): MultipartUpload {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': contentType }, limits: LIMITS, defParamCharset: 'utf8', fileHwm: 1024 * 1024 });
  } catch (err) {
    throw new AppError('UPLOAD_FAILED', `Content-Type ${JSON.stringify(contentType)} is not a usable multipart/form-data type: ${(err as Error).message}`);
  }
  const fields = new Map<string, string>();
  let resolveFile!: (p: FilePart | undefined) => void;
  let rejectFile!: (err: unknown) => void;
  const file = new Promise<FilePart | undefined>((resolve, reject) => {
    resolveFile = resolve;
    rejectFile = reject;
  });
  file.catch(() => undefined);
  let seenFile = false;
  let stopped: Error | undefined;

  parser.on('field', (name, value) => {
    if (!fields.has(name)) fields.set(name, value);
  });
  parser.on('file', (name, stream: Readable, info) => {
    if (name !== fileField || seenFile) {
      stream.resume(); // not ours: drain it so the parser can go on
      return;
    }
    seenFile = true;
    resolveFile({ stream, filename: info.filename === undefined || info.filename === '' ? undefined : info.filename });
  });

  const done = new Promise<void>((resolve, reject) => {
    parser.on('close', () => {
      resolveFile(undefined); // no-op when the file part came
      resolve();
    });
    parser.on('error', (err) => {
      const e = failed(stopped ?? err);
      rejectFile(e);
      reject(e);
    });
  });
  done.catch(() => undefined);

  const waitDrain = () => new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      parser.off('drain', onDrain);
      parser.off('close', onClose);
      parser.off('error', onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(stopped ?? new Error('the multipart parser stopped'));
    };
    parser.on('drain', onDrain);
    parser.on('close', onClose);
    parser.on('error', onClose);
  });

  const pump = async (): Promise<void> => {
    const body = req.bodyStream;
    if (body === undefined) throw new AppError('UPLOAD_FAILED', 'the request has no body');
    for await (const chunk of body) {
      if (stopped !== undefined || parser.destroyed) return;
      if (!parser.write(chunk)) await waitDrain();
    }
    parser.end();
  };
  pump().catch((err: unknown) => {
    if (!parser.destroyed) parser.destroy(err instanceof Error ? err : new Error(String(err)));
  });

  return {
    file,
    done,
    fields,
    abort(reason) {
      stopped ??= reason;
      if (!parser.destroyed) parser.destroy(reason);
    },
  };
}
