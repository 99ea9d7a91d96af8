const MAX_DEPTH = 200;

/**
 * Every empty object and array of the copies is one of these: a record's empty containers (a target's
 * `attributes`, `metadata` and `tags` until it has some) cost no memory of their own. An empty `{}` is an
 * object with four in-object property slots (56 bytes), so 100,000 targets held 14 MB of them.
 */
const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});
const EMPTY_ARRAY: readonly never[] = Object.freeze([]);

/**
 * A deep, frozen copy of `value` with the meaning JSON gives it (what the Redis adapter's
 * JSON.stringify/parse round trip yields): `toJSON` is applied, undefined, functions and symbols are
 * dropped from objects and become null in arrays, non-finite numbers become null. Returns undefined
 * when `value` has no JSON form at all.
 *
 * Why a frozen copy: stored state is handed out on every read (the poll hot path), so reads must not
 * copy; freezing once at write time makes the shared value safe to hand out. Measured on a typical
 * actor record: this copy ~1.4 µs; JSON round trip + freeze ~6.5 µs; structuredClone + freeze
 * ~6.7 µs; a JSON.parse per read instead ~2.4 µs per read versus ~10 ns for the frozen value.
 * Empty objects and arrays are shared (EMPTY_OBJECT, EMPTY_ARRAY): a caller must not tell two copies'
 * empty containers apart by identity (nothing keys a WeakMap by one).
 */
export function freezeJson(value: unknown): unknown {
  return copy(value, 0);
}

function copy(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'bigint':
      throw new TypeError('a BigInt has no JSON form');
    case 'object':
      break;
    default:
      return undefined; // undefined, function, symbol
  }
  if (v === null) return null;
  if (depth > MAX_DEPTH) throw new TypeError(`value nests deeper than ${MAX_DEPTH} levels (or is cyclic)`);
  const o = v as Record<string, unknown> & { toJSON?: unknown };
  if (typeof o.toJSON === 'function') return copy((o.toJSON as () => unknown)(), depth + 1);
  if (Array.isArray(o)) {
    if (o.length === 0) return EMPTY_ARRAY;
    const out: unknown[] = new Array<unknown>(o.length);
    for (let i = 0; i < o.length; i++) {
      const x = copy(o[i], depth + 1);
      out[i] = x === undefined ? null : x;
    }
    return Object.freeze(out);
  }
  const keys = Object.keys(o);
  if (keys.length === 0) return EMPTY_OBJECT;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const x = copy(o[key], depth + 1);
    if (x === undefined) continue;
    // JSON.parse makes "__proto__" an own property; plain assignment would set the prototype instead
    if (key === '__proto__') Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true });
    else out[key] = x;
  }
  return Object.freeze(out);
}
