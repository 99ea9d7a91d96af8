/**
 * HAL links. Absolute URLs are built from the base URL the client used (`req.baseUrl`), which
 * honours X-Forwarded-Proto/-Host/-Port only from configured trusted proxies.
 * @see reference/hawkbit-api.md section 3.0
 */
import type { Request } from './types.js';

export interface Link {
  readonly href: string;
  readonly name?: string;
}

/** Absolute URL for a path on this server: href(req, '/rest/v1/targets/dev1'). */
export function href(req: Pick<Request, 'baseUrl'>, path: string): string {
  return req.baseUrl + path;
}

export function link(req: Pick<Request, 'baseUrl'>, path: string, name?: string): Link {
  return name === undefined ? { href: req.baseUrl + path } : { href: req.baseUrl + path, name };
}

/**
 * Percent-encodes one path segment (ids chosen by clients, such as controller ids). Never throws:
 * a lone UTF-16 surrogate, which encodeURIComponent refuses and only records stored before the
 * edge checked for them can hold, is written as its WTF-8 bytes (`%ED%BF%BF`), which the router
 * decodes back, so such a record's own link still reaches it (to delete it).
 */
export function segment(value: string | number): string {
  const text = String(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/\p{Cs}|[^\p{Cs}]+/gu, (part) => {
      const unit = part.charCodeAt(0);
      if (part.length > 1 || unit < 0xd800 || unit > 0xdfff) return encodeURIComponent(part);
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    });
  }
}
