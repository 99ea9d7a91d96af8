/**
 * Media types. hawkBit produces and consumes application/hal+json and application/json
 * (reference 0.2). Our rules, kept simple:
 * - A JSON request body needs Content-Type application/json, application/hal+json or
 *   application/*+json (parameters such as charset are ignored); anything else is a 415.
 * - JSON replies are `application/json` unless the client names `application/hal+json`
 *   explicitly and ranks it above application/json (higher q, or equal q and listed first).
 *   No Accept, `*\/*` or `application/*` mean application/json.
 * - An Accept that allows neither (nor `*\/*`, `application/*`) is a 406 for JSON replies.
 * @see reference/hawkbit-api.md section 0.2
 */
export type JsonFlavour = 'json' | 'hal' | 'unacceptable';

export const JSON_TYPE = 'application/json';
export const HAL_TYPE = 'application/hal+json';

// Device fleets send a handful of distinct Accept headers; parse each once.
const cache = new Map<string, JsonFlavour>();
const CACHE_MAX = 512;

export function negotiateJson(accept: string | undefined): JsonFlavour {
  if (accept === undefined || accept === '') return 'json';
  let flavour = cache.get(accept);
  if (flavour === undefined) {
    flavour = parseAccept(accept);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(accept, flavour);
  }
  return flavour;
}

export function contentTypeOf(flavour: JsonFlavour): string {
  return flavour === 'hal' ? HAL_TYPE : JSON_TYPE;
}

function parseAccept(accept: string): JsonFlavour {
  let json = -1;
  let jsonAt = Infinity;
  let hal = -1;
  let halAt = Infinity;
  let wildcard = -1;
  accept.split(',').forEach((part, index) => {
    const [type = '', ...params] = part.split(';');
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim().toLowerCase() === 'q' && v !== undefined) {
        const n = Number(v.trim());
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      }
    }
    switch (type.trim().toLowerCase()) {
      case JSON_TYPE:
        if (q > json) [json, jsonAt] = [q, index];
        break;
      case HAL_TYPE:
        if (q > hal) [hal, halAt] = [q, index];
        break;
      case '*/*':
      case 'application/*':
        wildcard = Math.max(wildcard, q);
        break;
    }
  });
  if (hal > 0 && (hal > json || (hal === json && halAt < jsonAt))) return 'hal';
  if (json > 0 || wildcard > 0) return 'json';
  return 'unacceptable';
}

/** True for application/json, application/hal+json and application/*+json (parameters ignored). */
export function isJsonContentType(contentType: string): boolean {
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === JSON_TYPE || (type.startsWith('application/') && type.endsWith('+json') && !type.includes('/', 12));
}
