/** Ids and names from outside: the one way to get one is to parse it where it enters (path, body, store). */

const POSITIVE_INT = /^[1-9][0-9]{0,15}$/;

/** A positive safe integer from a path segment or query value, or undefined. */
export function parsePositiveInt(raw: string): number | undefined {
  return POSITIVE_INT.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
}

/**
 * hawkBit's controller id (JpaTarget: `@Size(min = 1, max = 256) @Pattern("[\\S]*")`): 1..256
 * characters without whitespace; anything else a device may call itself (`sensor(1)`, `gerät-1`).
 * Control characters are refused too, lone UTF-16 surrogates, and `/`, which no path could carry. Path parameters are percent-decoded by the router, which
 * already refuses `/`, `..` and NUL.
 */
const CONTROLLER_ID = /^[^\s\p{Cc}\p{Cs}/]{1,256}$/u; // \p{Cs}: a lone surrogate, which no URL can carry
export function isValidControllerId(raw: string): boolean {
  return CONTROLLER_ID.test(raw);
}

/** A tenant's name, in config.yaml and in POST /rest/v1/system/admin/tenants: 1-64 of A-Z a-z 0-9 _ -. */
export const TENANT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** What a name that fails TENANT_NAME is told. */
export const TENANT_NAME_EXPECTED = 'expected 1-64 of A-Z a-z 0-9 _ -';

/** A Management user's name (config.yaml, a runtime tenant's users): no spaces, ':' (Basic) or backslash (TENANT\user). */
export const USERNAME = /^[^\\:\s]{1,128}$/;
/** What a name that fails USERNAME is told. */
export const USERNAME_EXPECTED = "expected 1-128 characters without spaces, ':' or '\\'";

/** Tenants are case-insensitive in hawkBit and stored upper-case. */
export function canonicalTenant(raw: string): string {
  return raw.toUpperCase();
}
