/**
 * Media types. hawkBit produces `application/hal+json` and `application/json` on every route, and
 * its DDI routes `application/cbor` too (DdiRestConstants.MEDIA_TYPE_CBOR); Spring picks in that
 * order. Our rules:
 * - A JSON request body needs Content-Type application/json, application/hal+json or
 *   application/*+json (parameters such as charset are ignored); a route that speaks CBOR also
 *   takes application/cbor; anything else is a 415.
 * - The reply type is the offered type (hal+json, json, then cbor where the route speaks it) that
 *   the Accept header ranks highest: by q, then by how specific the matching range is (an exact
 *   type beats `application/*`, which beats `*\/*`), then by its place in the header, then in that
 *   order. No Accept, `*\/*` or `application/*` therefore mean application/hal+json, as in hawkBit.
 * - An Accept that allows none of them is a 406 for JSON replies.
 * @see reference/hawkbit-api.md section 0.2
 */
export type Flavour = 'hal' | 'json' | 'cbor' | 'unacceptable';

export const JSON_TYPE = 'application/json';
export const HAL_TYPE = 'application/hal+json';
export const CBOR_TYPE = 'application/cbor';

const JSON_OFFERS = ['hal', 'json'] as const;
const CBOR_OFFERS = ['hal', 'json', 'cbor'] as const;
type Offered = (typeof CBOR_OFFERS)[number];
const TYPE_OF: Readonly<Record<Offered, string>> = { hal: HAL_TYPE, json: JSON_TYPE, cbor: CBOR_TYPE };

// Device fleets send a handful of distinct Accept headers; parse each once (per set of offers).
const CACHE_MAX = 512;
const jsonCache = new Map<string, Flavour>();
const cborCache = new Map<string, Flavour>();

/** The reply flavour for an Accept header; `cbor`: the route speaks CBOR too. */
export function negotiate(accept: string | undefined, cbor = false): Flavour {
  if (accept === undefined || accept === '') return 'hal';
  const cache = cbor ? cborCache : jsonCache;
  let flavour = cache.get(accept);
  if (flavour === undefined) {
    flavour = parseAccept(accept, cbor ? CBOR_OFFERS : JSON_OFFERS);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(accept, flavour);
  }
  return flavour;
}

/** The Content-Type of a reply body of this flavour (an unacceptable request gets its 406 as JSON). */
export function contentTypeOf(flavour: Flavour): string {
  return flavour === 'hal' ? HAL_TYPE : flavour === 'cbor' ? CBOR_TYPE : JSON_TYPE;
}

interface Range {
  readonly type: string;
  readonly q: number;
  readonly index: number;
}

/** 3: exact type, 2: `application/*`, 1: `*\/*`, 0: no match. */
function specificity(range: string, type: string): number {
  if (range === type) return 3;
  if (range === 'application/*') return 2;
  if (range === '*/*') return 1;
  return 0;
}

function parseAccept(accept: string, offers: readonly Offered[]): Flavour {
  const ranges: Range[] = accept.split(',').map((part, index) => {
    const [type = '', ...params] = part.split(';');
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim().toLowerCase() === 'q' && v !== undefined) {
        const n = Number(v.trim());
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      }
    }
    return { type: type.trim().toLowerCase(), q, index };
  });
  let best: Flavour = 'unacceptable';
  let bestKey: readonly number[] = [0, 0, 0];
  for (const offer of offers) {
    // the most specific range that matches decides this type's quality (RFC 9110 12.5.1)
    let match: Range | undefined;
    let matchSpec = 0;
    for (const r of ranges) {
      const spec = specificity(r.type, TYPE_OF[offer]);
      if (spec > matchSpec) [match, matchSpec] = [r, spec];
    }
    if (match === undefined || match.q <= 0) continue;
    const key = [match.q, matchSpec, -match.index];
    if (best === 'unacceptable' || greater(key, bestKey)) [best, bestKey] = [offer, key];
  }
  return best;
}

function greater(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if ((a[i] as number) !== (b[i] as number)) return (a[i] as number) > (b[i] as number);
  }
  return false;
}

function mediaTypeOf(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** True for application/json, application/hal+json and application/*+json (parameters ignored). */
export function isJsonContentType(contentType: string): boolean {
  const type = mediaTypeOf(contentType);
  return type === JSON_TYPE || (type.startsWith('application/') && type.endsWith('+json') && !type.includes('/', 12));
}

/** True for application/cbor (parameters ignored). */
export function isCborContentType(contentType: string): boolean {
  return mediaTypeOf(contentType) === CBOR_TYPE;
}
