/**
 * Turning a reply value into bytes: JSON, or CBOR where negotiated. Null properties are left out,
 * as every hawkBit model annotated `@JsonInclude(NON_NULL)` does (targets, modules, sets, types,
 * tags, actions, rollouts, the DDI models...). The few where hawkBit writes nulls on purpose
 * (`MgmtTargetFilterQuery` is `Include.ALWAYS`, a tenant configuration entry always has `value`)
 * mark their objects with `keepNulls`.
 */
import { encodeCbor } from './cbor.js';
import type { Flavour } from './negotiate.js';

const KEEP_NULLS = Symbol('keepNulls');

/** Marks an object whose null properties belong in the reply (hawkBit's `Include.ALWAYS`). */
export function keepNulls<T extends object>(value: T): T {
  Object.defineProperty(value, KEEP_NULLS, { value: true, enumerable: false });
  return value;
}

function dropNulls(this: Record<PropertyKey, unknown>, key: string, value: unknown): unknown {
  // a null array element is written as null whatever a replacer returns; only properties go
  return value === null && key !== '' && this[KEEP_NULLS] !== true ? undefined : value;
}

/** JSON text of a reply value; throws on what JSON cannot hold (cycles, BigInt). */
export function jsonOf(value: unknown): string {
  return JSON.stringify(value, dropNulls);
}

/** The body of a `json`/`jsonText` reply in the negotiated flavour. */
export function serialize(json: unknown, jsonText: string | undefined, flavour: Flavour): string | Buffer {
  const text = jsonText ?? jsonOf(json);
  // CBOR replies are the rare case: going through the JSON text gives exactly the JSON reply's value
  return flavour === 'cbor' ? encodeCbor(JSON.parse(text)) : text;
}
