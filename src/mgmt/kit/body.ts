import { z } from 'zod';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request } from '../../http/types.js';

/**
 * Management request bodies: the one reader and the building blocks every body schema is made of,
 * with hawkBit's column limits (NamedEntity name 128, description 512, version 64, type key 64,
 * colour 16, vendor 256, metadata key 128 / value 4000). Names, keys and versions are trimmed as
 * hawkBit's builders do; unknown fields are ignored (reference 0.2).
 *
 * How scalars are read is decided here once, for every Management body, as Jackson reads them for
 * hawkBit (Jackson 3 defaults: ALLOW_COERCION_OF_SCALARS and ACCEPT_FLOAT_AS_INT on; StdDeserializer):
 * - integers: a number (a fraction is cut off: 7.9 -> 7), or a string holding an integer, blanks
 *   around it allowed (`"3"`, `" +3 "`, `"007"`); `""` and `"null"` count as null. Refused: any other
 *   string (`"abc"`, `"1.5"`, `"1e3"`), booleans, arrays, objects.
 * - booleans: true/false, the strings `true`/`True`/`TRUE` and `false`/`False`/`FALSE` (blanks around
 *   allowed), integers (0 is false, any other true); `""` and `"null"` count as null. Refused: any
 *   other string (`"yes"`, `"1"`), fractions, arrays, objects.
 * - strings: numbers and booleans become their text (`42` -> `"42"`); arrays and objects are refused.
 * A block's `.nullish()` takes absent, null, and what counts as null above.
 * @see reference §0.2, §8
 */
export const LIMITS = {
  name: 128, description: 512, version: 64, key: 64, colour: 16, vendor: 256, metaKey: 128, metaValue: 4000,
} as const;

/** The body of a request, parsed and validated (400 BODY_NOT_READABLE naming the field). */
export function readBody<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  return readJson(req, schema);
}

/** The same for an optional body (hawkBit's `@RequestBody(required = false)`): none gives `fallback`. */
export function readOptionalBody<S extends z.ZodType>(req: Request, schema: S, fallback: z.output<S>): z.output<S> {
  return req.body === undefined || req.body.length === 0 ? fallback : readJson(req, schema);
}

/** A list, or a single item where a list is expected (Jackson's accept-single-value-as-array). */
export const many = acceptSingleAsArray;

const INTEGER_TEXT = /^[+-]?[0-9]+$/;

/** What Jackson reads as null in a number or boolean field: the empty string and the text `null`. */
function textualNull(v: string): boolean {
  return v === '' || v === 'null';
}

function toInteger(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : v;
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (textualNull(t)) return null;
  return INTEGER_TEXT.test(t) ? Number(t) : v;
}

const DECIMAL_TEXT = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/;

function toDecimal(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (textualNull(t)) return null;
  return DECIMAL_TEXT.test(t) ? Number(t) : v;
}

function toBoolean(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v !== 0 : v;
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (textualNull(t)) return null;
  if (t === 'true' || t === 'True' || t === 'TRUE') return true;
  if (t === 'false' || t === 'False' || t === 'FALSE') return false;
  return v;
}

function toText(v: unknown): unknown {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}

/**
 * `inner` read through `coerce`. Its `.nullish()` coerces first, so a value that coerces to null
 * (`""`, `"null"`) counts as not given, as Jackson makes it null; elsewhere null is refused.
 */
function coerced<T extends z.ZodType>(coerce: (v: unknown) => unknown, inner: T) {
  const schema = z.preprocess(coerce, inner);
  const nullish = () => z.preprocess(coerce, inner.nullish());
  // the method zod puts on every instance, replaced on this one (the intersection lists ours first, so calls resolve to it)
  return Object.assign(schema, { nullish }) as { nullish: typeof nullish } & typeof schema;
}

/** An integer in [min, max]. */
export const int = (min: number, max: number = Number.MAX_SAFE_INTEGER) => coerced(toInteger, z.number().int().min(min).max(max));
/** A number in [min, max], fractions allowed (a Float field such as a group's `targetPercentage`). */
export const decimal = (min: number, max: number) => coerced(toDecimal, z.number().min(min).max(max));
export const bool = () => coerced(toBoolean, z.boolean());
/** An entity id: a positive integer. */
export const id = () => int(1);
/** A JSON string as `schema` checks it (default: any); numbers and booleans become their text. */
export const str = <S extends z.ZodType<string, string>>(schema?: S) => z.preprocess(toText, schema ?? z.string());

const trimmed = (max: number) => str(z.string().trim().min(1).max(max));
/** Free text up to `max` characters; null and absent mean "not given". */
export const text = (max: number) => str(z.string().max(max)).nullish();

export const name = trimmed(LIMITS.name);
export const version = trimmed(LIMITS.version);
export const typeKey = trimmed(LIMITS.key);
export const description = text(LIMITS.description);
export const colour = text(LIMITS.colour);
export const vendor = text(LIMITS.vendor);

/** An entity id in a body: `{ "id": 5 }`. */
export const idRef = z.object({ id: id() });
/** `[{ "id": 5 }, ...]`, or a single one. */
export const idRefs = many(idRef);
/** A plain id in a body array: `[5, 6]`. */
export const plainId = id();

export const metadataKey = str(z.string().min(1).max(LIMITS.metaKey));
export const metadataValue = str(z.string().max(LIMITS.metaValue));

/** `null` or absent stays absent: hawkBit's update builders change only the fields given. */
export function given<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null;
}
