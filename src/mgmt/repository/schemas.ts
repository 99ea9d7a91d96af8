import { z } from 'zod';

/**
 * Request-body building blocks with hawkBit's column limits (NamedEntity name 128, description
 * 512, version 64, type key 64, colour 16, vendor 256, metadata key 128 / value 4000). Names,
 * keys and versions are trimmed as hawkBit's builders do; unknown fields are ignored.
 * @see reference §0.2, §8
 */
export const LIMITS = { name: 128, description: 512, version: 64, key: 64, colour: 16, vendor: 256, metaKey: 128, metaValue: 4000 } as const;

const trimmed = (max: number) => z.string().trim().min(1).max(max);
const optionalText = (max: number) => z.string().max(max).nullish();

export const name = trimmed(LIMITS.name);
export const version = trimmed(LIMITS.version);
export const typeKey = trimmed(LIMITS.key);
export const description = optionalText(LIMITS.description);
export const colour = optionalText(LIMITS.colour);
export const vendor = optionalText(LIMITS.vendor);

/** An entity id in a body: `{ "id": 5 }`. */
export const idRef = z.object({ id: z.number().int().positive() });
/** A plain id in a body array: `[5, 6]`. */
export const plainId = z.number().int().positive();

export const metadataKey = z.string().min(1).max(LIMITS.metaKey);
export const metadataValue = z.string().max(LIMITS.metaValue);

/** `null` or absent stays absent: hawkBit's update builders change only the fields given. */
export function given<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null;
}
