import { z } from 'zod';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request } from '../../http/types.js';

/**
 * Management request bodies: the one reader and the building blocks every body schema is made of,
 * with hawkBit's column limits (NamedEntity name 128, description 512, version 64, type key 64,
 * colour 16, vendor 256, metadata key 128 / value 4000). Names, keys and versions are trimmed as
 * hawkBit's builders do; unknown fields are ignored (reference 0.2). How scalars are read (numbers,
 * booleans, ids) is decided here once, for every Management body.
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

/** An integer in [min, max]. */
export const int = (min: number, max: number = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);
export const bool = () => z.boolean();
/** An entity id: a positive integer. */
export const id = () => int(1);

const trimmed = (max: number) => z.string().trim().min(1).max(max);
/** Free text up to `max` characters; null and absent mean "not given". */
export const text = (max: number) => z.string().max(max).nullish();

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

export const metadataKey = z.string().min(1).max(LIMITS.metaKey);
export const metadataValue = z.string().max(LIMITS.metaValue);

/** `null` or absent stays absent: hawkBit's update builders change only the fields given. */
export function given<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null;
}
