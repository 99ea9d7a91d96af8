/**
 * ETags for DDI JSON replies, like hawkBit's Spring ShallowEtagHeaderFilter: a strong tag derived
 * from the body, and 304 Not Modified when `If-None-Match` names it. Artifact downloads
 * are excluded (they carry the sha1 as ETag, see src/artifacts/download.ts).
 * @see reference/hawkbit-api.md §1.3
 */
import { contentTypeOf, negotiateJson } from '../http/negotiate.js';
import type { Reply, Request } from '../http/types.js';

/**
 * A strong tag from 64-bit FNV-1a over the body's UTF-16 code units (two 32-bit lanes). Clients only
 * compare tags for equality; a cryptographic digest per poll would cost more than the rest of it.
 */
export function etagOf(body: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0xcbf29ce4;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h1 >>> 15);
  }
  return `"0${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}"`;
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
