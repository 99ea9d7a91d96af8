/**
 * Conditional GET for artifacts (RFC 7232), evaluated in the RFC's order: If-Match, else
 * If-Unmodified-Since (412); then If-None-Match, else If-Modified-Since (304).
 * The ETag is the artifact's sha1 in quotes.
 */

export type Precondition =
  | { readonly kind: 'proceed' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'not-modified' };

const PROCEED: Precondition = { kind: 'proceed' };
const NOT_MODIFIED: Precondition = { kind: 'not-modified' };
// an entity-tag (optionally weak), a bare token, or *
const TAG = /\s*(?:(W\/)?"([^"]*)"|([^",\s]+))\s*(?:,|$)/gy;

interface Tag {
  readonly weak: boolean;
  readonly value: string;
}

export function evaluatePreconditions(headers: Readonly<Record<string, string>>, sha1: string, lastModifiedMs: number): Precondition {
  const etag = `"${sha1}"`;
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    // Strong comparison. A bare sha1 (no quotes) also matches: hawkBit compares If-Match with the
    // unquoted sha1 (HttpUtil.matchesHttpHeader), so its clients may send it that way.
    const ok = parseTags(ifMatch).some((t) => t.value === '*' || (!t.weak && t.value === sha1));
    if (!ok) return { kind: 'failed', reason: `If-Match ${ifMatch} does not match the artifact's ETag ${etag}` };
  } else {
    const since = httpDateSeconds(headers['if-unmodified-since']);
    if (since !== undefined && Math.floor(lastModifiedMs / 1000) > since) {
      return { kind: 'failed', reason: `the artifact was modified after ${headers['if-unmodified-since'] ?? ''}` };
    }
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    // weak comparison: W/"x" matches "x"
    return parseTags(ifNoneMatch).some((t) => t.value === '*' || t.value === sha1) ? NOT_MODIFIED : PROCEED;
  }
  const since = httpDateSeconds(headers['if-modified-since']);
  if (since !== undefined && Math.floor(lastModifiedMs / 1000) <= since) return NOT_MODIFIED;
  return PROCEED;
}

function parseTags(header: string): Tag[] {
  const tags: Tag[] = [];
  TAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TAG.lastIndex < header.length && (m = TAG.exec(header)) !== null) {
    tags.push({ weak: m[1] !== undefined, value: m[2] ?? m[3] ?? '' });
    if (m[0].length === 0) break;
  }
  return tags;
}

/** An HTTP date in whole seconds, or undefined when absent or unparsable (then the header is ignored). */
function httpDateSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** IMF-fixdate, e.g. `Tue, 15 Nov 1994 08:12:31 GMT`. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
