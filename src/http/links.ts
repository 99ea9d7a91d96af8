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

/** Percent-encodes one path segment (ids chosen by clients, such as controller ids). */
export function segment(value: string | number): string {
  return encodeURIComponent(String(value));
}
