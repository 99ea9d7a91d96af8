/**
 * RFC 7233 Range parsing, pure. Decisions where the RFC leaves room or where we part from it:
 * - Malformed headers (`bytes=abc`, `bytes=5-1`, `bytes=`, another unit such as `items=0-1`) are
 *   answered 416 with an error body that names the problem, not ignored. RFC 7233 section 3.1 says
 *   a server SHOULD ignore an invalid Range (-> 200 with the whole file), but hawkBit answers 416
 *   (FileStreamingUtil.Range.of), device clients are written against it, and a clear error helps a
 *   client with a bug more than a silent multi-gigabyte 200. So `malformed` is its own outcome.
 * - More than MAX_RANGES ranges: the header is ignored and the whole body is served, which section 3.1
 *   allows; it caps the work one request can cause (many tiny ranges make a huge multipart body).
 * - Overlapping and adjacent ranges are coalesced and sorted (section 4.1 permits it); hawkBit refuses
 *   overlapping ranges with 416, which no client needs.
 * - A range reaching past the end is clamped to size-1; a range starting at or past the end is
 *   unsatisfiable, and the request is unsatisfiable only when every range is (section 2.1).
 * - Whitespace around `=`, `,` and `-` is tolerated, and empty list elements are skipped (RFC 7230 section 7).
 * @see reference/hawkbit-api.md section 1.1, rows 3-4
 */

/** Inclusive byte positions, start <= end < size. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export type RangeRequest =
  | { readonly kind: 'full' }
  | { readonly kind: 'ranges'; readonly ranges: readonly ByteRange[] }
  | { readonly kind: 'unsatisfiable' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Beyond this many ranges in one header, the header is ignored (whole body). */
export const MAX_RANGES = 32;

const FULL: RangeRequest = { kind: 'full' };
const UNSATISFIABLE: RangeRequest = { kind: 'unsatisfiable' };
const SPEC = /^(\d*)[ \t]*-[ \t]*(\d*)$/;

export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return FULL;
  const eq = header.indexOf('=');
  if (eq < 0) return malformed(`Range header ${quote(header)} is not of the form bytes=first-last`);
  const unit = header.slice(0, eq).trim();
  if (unit.toLowerCase() !== 'bytes') return malformed(`Range unit ${quote(unit)} is not supported; use bytes`);
  const satisfiable: ByteRange[] = [];
  let count = 0;
  for (const element of header.slice(eq + 1).split(',')) {
    const spec = element.trim();
    if (spec === '') continue;
    if (++count > MAX_RANGES) return FULL;
    const m = SPEC.exec(spec);
    const first = m?.[1];
    const last = m?.[2];
    if (first === undefined || last === undefined || (first === '' && last === '')) {
      return malformed(`Range ${quote(spec)} is not of the form first-last, first- or -suffixLength`);
    }
    if (first === '') {
      const suffix = Number(last);
      if (suffix > 0 && size > 0) satisfiable.push({ start: Math.max(0, size - suffix), end: size - 1 });
      continue;
    }
    const start = Number(first);
    const end = last === '' ? size - 1 : Number(last);
    if (last !== '' && end < start) return malformed(`Range ${quote(spec)} ends before it starts`);
    if (start < size) satisfiable.push({ start, end: Math.min(end, size - 1) });
  }
  if (count === 0) return malformed(`Range header ${quote(header)} names no range`);
  if (satisfiable.length === 0) return UNSATISFIABLE;
  return { kind: 'ranges', ranges: coalesce(satisfiable) };
}

/**
 * If-Range (RFC 7233 section 3.2): true when the Range header may be honoured, i.e. If-Range is
 * absent, equals the strong ETag, or is an HTTP date equal to Last-Modified (to the second).
 * Anything else (another or a weak ETag, an older or unparsable date) means: send the whole body.
 */
export function ifRangeAllowsPartial(ifRange: string | undefined, etag: string, lastModifiedMs: number): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag; // strong comparison: W/ never matches
  const date = Date.parse(value);
  return !Number.isNaN(date) && Math.floor(date / 1000) === Math.floor(lastModifiedMs / 1000);
}

function coalesce(ranges: ByteRange[]): ByteRange[] {
  if (ranges.length === 1) return ranges;
  ranges.sort((a, b) => a.start - b.start);
  const out: ByteRange[] = [];
  let current = ranges[0] as ByteRange;
  for (let i = 1; i < ranges.length; i++) {
    const next = ranges[i] as ByteRange;
    if (next.start <= current.end + 1) {
      if (next.end > current.end) current = { start: current.start, end: next.end };
    } else {
      out.push(current);
      current = next;
    }
  }
  out.push(current);
  return out;
}

function malformed(reason: string): RangeRequest {
  return { kind: 'malformed', reason };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}...` : text);
}
