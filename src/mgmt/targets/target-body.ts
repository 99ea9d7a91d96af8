import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { isValidControllerId } from '../../domain/ids.js';
import { bool, id, int, many, str, text } from '../kit/body.js';

/** Request bodies of the target endpoints, with hawkBit's column limits. @see reference §3.1, §8 */
export const LIMITS = { controllerId: 256, name: 128, description: 512, address: 512, securityToken: 128, group: 256 } as const;

const controllerId = str(z
  .string()
  .min(1)
  .max(LIMITS.controllerId)
  .refine(isValidControllerId, { error: (iss) => `must not contain whitespace, control characters or '/', got ${JSON.stringify(String(iss.input).slice(0, 40))}` }));

export const createTargetItem = z.object({
  controllerId,
  name: text(LIMITS.name),
  description: text(LIMITS.description),
  address: text(LIMITS.address),
  securityToken: text(LIMITS.securityToken),
  requestAttributes: bool().nullish(),
  targetType: id().nullish(),
  group: text(LIMITS.group),
});
export const createTargetsBody = many(createTargetItem);
export type CreateTargetItem = z.output<typeof createTargetItem>;

/** PUT: every field optional (null or absent: unchanged); `controllerId` is accepted and ignored. */
export const updateTargetBody = z.object({
  controllerId: str().nullish(),
  name: str(z.string().min(1).max(LIMITS.name)).nullish(),
  description: text(LIMITS.description),
  address: text(LIMITS.address),
  securityToken: str(z.string().min(1).max(LIMITS.securityToken)).nullish(),
  requestAttributes: bool().nullish(),
  /** A target type id, or -1 to remove the type. */
  targetType: int(-1).nullish(),
  group: text(LIMITS.group),
});

// RFC 3986 characters; anything else (spaces, quotes, control characters) is not a URI
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/** hawkBit stores the address as a URI and refuses what does not parse (InvalidTargetAddressException). */
export function checkAddress(address: string | null | undefined, field: string): void {
  if (address === null || address === undefined || address === '') return;
  if (!URI_CHARS.test(address) || /%(?![0-9A-Fa-f]{2})/.test(address)) {
    throw new AppError('INVALID_TARGET_ADDRESS', `${field}: ${JSON.stringify(address.slice(0, 64))} is not a valid URI`);
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A target security token: 32 alphanumeric characters from the crypto RNG (spec 2.3, 5). */
export function generateSecurityToken(): string {
  let out = '';
  for (let i = 0; i < 32; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}
