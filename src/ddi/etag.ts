/**
 * ETags for DDI JSON replies, as hawkBit's Spring ShallowEtagHeaderFilter makes them: a strong tag
 * `"0<md5 of the body>"`, and 304 Not Modified when `If-None-Match` names it. Artifact downloads
 * are excluded (they carry the sha1 as ETag, see src/artifacts/download.ts).
 * @see reference/hawkbit-api.md §1.3
 */
import { createHash } from 'node:crypto';
import { contentTypeOf, negotiateJson } from '../http/negotiate.js';
import type { Reply, Request } from '../http/types.js';

export function etagOf(body: string): string {
  return `"0${createHash('md5').update(body).digest('hex')}"`;
}

/** RFC 7232 section 3.2: `*` or a list of tags, compared weakly (a W/ prefix is ignored). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) {
    let tag = part.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}

/** 200 with the serialised body and its ETag, or 304 when the client has it already. */
export function etagReply(req: Request, body: string): Reply {
  const etag = etagOf(body);
  if (noneMatch(req.headers['if-none-match'], etag)) return { status: 304, headers: { ETag: etag } };
  return { status: 200, headers: { ETag: etag, 'Content-Type': contentTypeOf(negotiateJson(req.headers['accept'])) }, body };
}

export function jsonEtagReply(req: Request, value: unknown): Reply {
  return etagReply(req, JSON.stringify(value));
}
