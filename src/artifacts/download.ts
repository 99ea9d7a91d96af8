/**
 * Artifact download replies, shared by the DDI download (`.../artifacts/{fileName}`) and the
 * Management download (`.../artifacts/{artifactId}/download`): ETag = quoted sha1, Accept-Ranges,
 * Last-Modified, Content-Disposition, 206 for ranges (multipart/byteranges for several), 416 with
 * `Content-Range: bytes *\/len`, 412 when If-Match does not match, 304 for If-None-Match.
 * With `accelRedirect`, a plain GET (no conditional header; no Range, or one plain `bytes=first-last`)
 * is answered with the headers and `X-Accel-Redirect` instead of the bytes: nginx sends the file from
 * the storage path (deploy/nginx.conf's internal location) and makes the 206 of the range itself.
 * Every other request (HEAD, several ranges, If-*) is answered here, exactly as without it.
 * @see reference/hawkbit-api.md section 1.1, rows 3-4, and section 3.12
 */
import { AppError } from '../domain/errors.js';
import { segment } from '../http/links.js';
import type { Reply, Request } from '../http/types.js';
import { evaluatePreconditions, httpDate } from './conditional.js';
import { multipartBody, rangeBody } from './file-body.js';
import { ifRangeAllowsPartial, parseRange, type ByteRange, type RangeRequest } from './range.js';

export interface ArtifactFile {
  /** From ArtifactStorage.open. */
  readonly path: string;
  readonly size: number;
  /** Sent as Last-Modified (hawkBit sends the artifact's creation time). */
  readonly mtimeMs: number;
  /** Lower-case hex. */
  readonly sha1: string;
  readonly md5: string;
  /** The artifact's file name, for Content-Disposition. */
  readonly filename: string;
  /** The whole binary in memory (ArtifactStorage.openHot): the body is sent from it instead of the file. */
  readonly bytes?: Buffer | undefined;
  /** Where it lies under the storage's artifacts directory (StoredBinary.storedAs), for X-Accel-Redirect. */
  readonly storedAs?: string | undefined;
}

export interface ArtifactReplyOptions {
  /** Answer headers only, whatever the method (HEAD is detected from the request anyway). */
  readonly headOnly?: boolean;
  /**
   * The internal location of the proxy that serves `<dataDir>/artifacts/` (ending in `/`): plain GETs
   * get `X-Accel-Redirect: <this><storedAs>` and no body. Only for requests through a trusted proxy.
   */
  readonly accelRedirect?: string | undefined;
}

// Conditional headers nginx would evaluate again against its own validators: such requests are answered here.
const CONDITIONAL = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const;
const PLAIN_RANGE = /^bytes=\d*-\d*$/;

const FULL: RangeRequest = { kind: 'full' };

/**
 * The reply for a download of `file`. Throws AppError PRECONDITION_FAILED (412) or
 * RANGE_NOT_SATISFIABLE (416, with Content-Range) for the error body.
 */
export function artifactReply(req: Request, file: ArtifactFile, opts: ArtifactReplyOptions = {}): Reply {
  const etag = `"${file.sha1}"`;
  const validators = validatorHeaders(file);
  const pre = evaluatePreconditions(req.headers, file.sha1, file.mtimeMs);
  if (pre.kind === 'failed') throw new AppError('PRECONDITION_FAILED', pre.reason, { headers: validators });
  if (pre.kind === 'not-modified') return { status: 304, headers: validators };

  const headers: Record<string, string> = downloadHeaders(file);
  // Range applies to GET only (RFC 7233 section 3.1); hawkBit ignores it on other methods too.
  const rangeHeader = opts.headOnly === true || req.method !== 'GET' ? undefined : req.headers['range'];
  const wanted = rangeHeader !== undefined && ifRangeAllowsPartial(req.headers['if-range'], etag, file.mtimeMs) ? parseRange(rangeHeader, file.size) : FULL;
  const accel = accelTarget(req, file, opts, rangeHeader);
  switch (wanted.kind) {
    case 'full':
      if (accel !== undefined) return accelReply(200, headers, accel);
      return { status: 200, headers, stream: rangeBody(file, { start: 0, end: file.size - 1 }) };
    case 'malformed':
      throw new AppError('RANGE_NOT_SATISFIABLE', wanted.reason, { headers: { 'Content-Range': `bytes */${file.size}` } });
    case 'unsatisfiable':
      throw new AppError('RANGE_NOT_SATISFIABLE', `Range ${rangeHeader ?? ''} lies outside the artifact's ${file.size} bytes`, {
        headers: { 'Content-Range': `bytes */${file.size}` },
      });
    case 'ranges': {
      const [only, ...more] = wanted.ranges;
      if (only !== undefined && more.length === 0) {
        // nginx writes the Content-Range of the range it sends
        if (accel !== undefined) return accelReply(206, headers, accel);
        headers['Content-Range'] = contentRange(only, file.size);
        return { status: 206, headers, stream: rangeBody(file, only) };
      }
      const multipart = multipartBody(file, wanted.ranges, file.size);
      headers['Content-Type'] = multipart.contentType;
      return { status: 206, headers, stream: multipart.body };
    }
  }
}

type Described = Pick<ArtifactFile, 'sha1' | 'mtimeMs' | 'filename'>;

/** The headers of a 304 (and of a 412's error body), in the order they are written. */
export function validatorHeaders(file: Described): Record<string, string> {
  return { ETag: `"${file.sha1}"`, 'Last-Modified': httpDate(file.mtimeMs) };
}

/** The headers of a 200 or 206 with the bytes (a 206 adds its Content-Range after them), in the order they are written. */
export function downloadHeaders(file: Described): Record<string, string> {
  return {
    ...validatorHeaders(file),
    'Accept-Ranges': 'bytes',
    'Content-Disposition': contentDisposition(file.filename),
    'Content-Type': 'application/octet-stream',
    // as hawkBit: no MIME sniffing of downloaded binaries in browsers
    'X-Content-Type-Options': 'nosniff',
  };
}

/** The Content-Range of a 206 of one range. */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/**
 * Headers and the redirect, no body. nginx passes Content-Type, Content-Disposition and Accept-Ranges on
 * (the last we leave out: nginx's static files send their own); ETag and X-Content-Type-Options are added
 * by the internal location; Last-Modified is the file's, as here. The status only tells the caller what
 * nginx will answer (a range: 206, no DOWNLOAD entry).
 */
function accelReply(status: 200 | 206, headers: Readonly<Record<string, string>>, target: string): Reply {
  const { 'Accept-Ranges': _nginxSendsIt, ...rest } = headers;
  return { status, headers: { ...rest, 'X-Accel-Redirect': target }, body: '' };
}

/** The X-Accel-Redirect target when the request may be handed to the proxy, else undefined. */
function accelTarget(req: Request, file: ArtifactFile, opts: ArtifactReplyOptions, rangeHeader: string | undefined): string | undefined {
  const prefix = opts.accelRedirect;
  if (prefix === undefined || file.storedAs === undefined || req.method !== 'GET' || opts.headOnly === true) return undefined;
  if (CONDITIONAL.some((name) => req.headers[name] !== undefined)) return undefined;
  if (rangeHeader !== undefined && !PLAIN_RANGE.test(rangeHeader)) return undefined;
  return prefix + file.storedAs;
}

/**
 * The `.MD5SUM` download: `"<md5>  <filename>"` (two spaces, no trailing newline, exactly as
 * hawkBit's FileStreamingUtil.writeMD5FileResponse), as an attachment named `<filename>.MD5SUM`.
 */
export function md5sumReply(md5: string, filename: string): Reply {
  return {
    status: 200,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': contentDisposition(`${filename}.MD5SUM`) },
    body: Buffer.from(`${md5}  ${filename}`, 'utf8'),
  };
}

// RFC 2045 tspecials plus space: a token may contain none of them.
const NEEDS_QUOTES = /[()<>@,;:\\"/[\]?= ]/;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * `attachment;filename=<name>` as hawkBit writes it: the bare name when it is a token, a
 * quoted-string otherwise. Departures, both for safety: control characters (a CR LF would split the
 * header) become `_`, and a non-ASCII name gets an ASCII fallback plus RFC 6266 `filename*=UTF-8''...`;
 * long names are not cut at 78 characters as hawkBit does.
 */
export function contentDisposition(filename: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = filename.replace(/[\x00-\x1f\x7f]/g, '_');
  if (PRINTABLE_ASCII.test(clean)) return `attachment;filename=${NEEDS_QUOTES.test(clean) ? quoted(clean) : clean}`;
  if (clean === '') return 'attachment;filename=""';
  const fallback = clean.replace(/[^\x20-\x7e]/g, '_');
  return `attachment;filename=${quoted(fallback)};filename*=UTF-8''${encodeExtValue(clean)}`;
}

function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}

/** RFC 5987 attr-char: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow. */
function encodeExtValue(text: string): string {
  return segment(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
