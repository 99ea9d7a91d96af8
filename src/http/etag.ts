/**
 * ETags for JSON (and CBOR) replies to GET and HEAD, like the Spring ShallowEtagHeaderFilter
 * hawkBit runs on every path but downloads: a strong tag derived from the body as sent, and 304
 * Not Modified when `If-None-Match` names it. Downloads carry their own (the artifact's sha1,
 * src/artifacts/download.ts) and are left alone.
 * @see reference/hawkbit-api.md §1.3
 */
import { hash } from 'node:crypto';
import type { Prepared } from './respond.js';

/**
 * `"0" + 16 hex digits` (64 bits of sha1). Clients only compare tags for equality; the native
 * one-shot sha1 costs ~1 µs on a poll body and ~0.1 ms on a 500-item page, less than an FNV loop
 * in JavaScript.
 */
export function etagOf(body: string | Buffer): string {
  return `"0${hash('sha1', body, 'hex').slice(0, 16)}"`;
}

/** RFC 9110 section 13.1.2: `*` or a list of tags, compared weakly (a W/ prefix is ignored). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true; // what a device sends back: the one tag it was given
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) {
    let tag = part.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}

/**
 * A prepared 200 with its ETag, or the 304 that replaces it when the client has that body already.
 * Callers pass only replies to GET/HEAD whose body is a serialised reply value; `known` is that
 * body's tag when the handler computed it before (Reply.etag).
 */
export function withEtag(p: Prepared, ifNoneMatch: string | undefined, known?: string): Prepared {
  const etag = known ?? etagOf(p.body ?? '');
  const headers = p.headers === undefined ? { ETag: etag } : { ...p.headers, ETag: etag };
  if (noneMatch(ifNoneMatch, etag)) return { status: 304, headers, contentType: undefined, body: undefined, stream: undefined };
  return { ...p, headers };
}
