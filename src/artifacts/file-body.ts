/**
 * Stream bodies of an artifact: the whole file, one range, or several ranges as multipart/byteranges
 * (RFC 7233 appendix A, RFC 2046 section 5.1). Lengths are exact and known up front. From the file,
 * it is opened when the server pulls the first chunk (so a missing file still gets a proper error
 * reply) and closed as the last bytes are read, or when the client goes away. From a hot binary in
 * memory (`bytes`), each range is one slice of that Buffer: no read, no copy, whatever the number of
 * connections sending it (the server writes it with backpressure).
 */
import { randomBytes } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { AppError } from '../domain/errors.js';
import type { StreamBody } from '../http/types.js';
import type { ByteRange } from './range.js';

// 64 KiB reads: a download holds about one chunk in memory, so thousands of parallel downloads stay small.
const READ_CHUNK = 64 * 1024;
const CRLF = '\r\n';

type Piece = Buffer | ByteRange;

/** Where the bytes come from: the file, or all of it in memory. */
export interface BinarySource {
  readonly path: string;
  readonly bytes?: Buffer | undefined;
}

export function rangeBody(source: BinarySource, range: ByteRange): StreamBody {
  return piecesBody(source, [range]);
}

export interface MultipartBody {
  readonly contentType: string;
  readonly body: StreamBody;
}

/**
 * The multipart layout hawkBit writes (FileStreamingUtil.handleMultipartRangeRequest): no preamble,
 * each part `--boundary CRLF Content-Type CRLF Content-Range CRLF CRLF data`, parts joined by CRLF,
 * then `CRLF --boundary--` with no epilogue. The boundary is random per reply (hawkBit's is fixed),
 * so file content cannot contain it by accident.
 */
export function multipartBody(source: BinarySource, ranges: readonly ByteRange[], size: number): MultipartBody {
  const boundary = `peregrine-${randomBytes(12).toString('hex')}`;
  const pieces: Piece[] = [];
  ranges.forEach((r, i) => {
    const head = `${i === 0 ? '' : CRLF}--${boundary}${CRLF}Content-Type: application/octet-stream${CRLF}Content-Range: bytes ${r.start}-${r.end}/${size}${CRLF}${CRLF}`;
    pieces.push(Buffer.from(head, 'latin1'), r);
  });
  pieces.push(Buffer.from(`${CRLF}--${boundary}--`, 'latin1'));
  return { contentType: `multipart/byteranges; boundary=${boundary}`, body: piecesBody(source, pieces) };
}

function piecesBody(source: BinarySource, pieces: readonly Piece[]): StreamBody {
  let length = 0;
  for (const p of pieces) length += Buffer.isBuffer(p) ? p.length : p.end - p.start + 1;
  const bytes = source.bytes;
  return { length, chunks: () => (bytes === undefined ? readPieces(source.path, pieces) : slicePieces(bytes, pieces)) };
}

// async only because a StreamBody's chunks are: slices need no wait
async function* slicePieces(bytes: Buffer, pieces: readonly Piece[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) yield Buffer.isBuffer(piece) ? piece : bytes.subarray(piece.start, piece.end + 1);
}

async function* readPieces(path: string, pieces: readonly Piece[]): AsyncGenerator<Buffer> {
  const lastRange = pieces.findLastIndex((p) => !Buffer.isBuffer(p));
  let handle: FileHandle | undefined = lastRange < 0 ? undefined : await openArtifact(path);
  try {
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as Piece;
      if (Buffer.isBuffer(piece)) {
        yield piece;
        continue;
      }
      const file = handle as FileHandle;
      let position = piece.start;
      while (position <= piece.end) {
        const want = Math.min(READ_CHUNK, piece.end - position + 1);
        const buffer = Buffer.allocUnsafe(want);
        const { bytesRead } = await file.read(buffer, 0, want, position);
        if (bytesRead === 0) throw new Error(`${path} ended at byte ${position}, before byte ${piece.end}`);
        position += bytesRead;
        if (i === lastRange && position > piece.end) {
          // Close before handing out the last bytes: the server stops pulling once it has sent the
          // announced length, so this generator may never be resumed (nor returned) after this yield.
          handle = undefined;
          await file.close();
        }
        yield bytesRead === want ? buffer : buffer.subarray(0, bytesRead);
      }
    }
  } finally {
    await handle?.close();
  }
}

async function openArtifact(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (err) {
    const gone = (err as { code?: unknown }).code === 'ENOENT';
    throw new AppError(gone ? 'ARTIFACT_BINARY_DELETED' : 'ARTIFACT_LOAD_FAILED', gone ? 'the artifact binary is no longer stored' : 'the artifact binary cannot be read', { cause: err });
  }
}
