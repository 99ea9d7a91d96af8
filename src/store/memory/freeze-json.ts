const MAX_DEPTH = 200;

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
    const out: unknown[] = new Array<unknown>(o.length);
    for (let i = 0; i < o.length; i++) {
      const x = copy(o[i], depth + 1);
      out[i] = x === undefined ? null : x;
    }
    return Object.freeze(out);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) {
    const x = copy(o[key], depth + 1);
    if (x === undefined) continue;
    // JSON.parse makes "__proto__" an own property; plain assignment would set the prototype instead
    if (key === '__proto__') Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true });
    else out[key] = x;
  }
  return Object.freeze(out);
}
