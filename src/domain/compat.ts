/**
 * `compat.managementApi`: which generation of hawkBit's Management API a tenant's scripts speak where
 * the spec fixes a wire value hawkBit 1.0 changed. "0.9" (the default) is the spec's form; "1.x" is
 * hawkBit 1.x's: the detailed action `status` (with `active`, no `detailStatus`, and FIQL `status==`
 * on it), metadata and configuration writes without an answer body (201 / 204), and quota
 * violations answered 429 (RestConfiguration of 1.0 moved them from 403). Set system-wide in
 * config.yaml, per tenant in its configuration.
 */
export const MANAGEMENT_API_GENERATIONS = ['0.9', '1.x'] as const;
export type ManagementApiGeneration = (typeof MANAGEMENT_API_GENERATIONS)[number];
export const DEFAULT_MANAGEMENT_API: ManagementApiGeneration = '0.9';

export function isManagementApiGeneration(value: unknown): value is ManagementApiGeneration {
  return (MANAGEMENT_API_GENERATIONS as readonly unknown[]).includes(value);
}

/** What is wrong with a value given for the switch, or undefined. */
export function generationProblem(value: unknown): string | undefined {
  if (isManagementApiGeneration(value)) return undefined;
  const expected = `expected one of ${MANAGEMENT_API_GENERATIONS.map((g) => `"${g}"`).join(', ')}`;
  // YAML reads an unquoted 0.9 as a number
  return typeof value === 'number' ? `${expected} (a string: quote it)` : expected;
}
