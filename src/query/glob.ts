/**
 * hawkBit's LIKE patterns for `==` / `!=`: `*` matches any run of characters, `\*` is a literal star,
 * any other backslash is a literal backslash. Matching is linear in practice (no regex is ever built
 * from user input): the pattern is split at the stars and the pieces are found in order with indexOf,
 * which is the correct greedy strategy when `*` is the only wildcard.
 * (hawkBit compares an escaped-only value such as `a\*b` literally, backslash included; we unescape it
 * to `a*b`, which is what the client meant.)
 * @see reference/hawkbit-api.md section 5
 */

export type Pattern =
  | { readonly kind: 'exact'; readonly text: string }
  | { readonly kind: 'glob'; readonly segments: readonly string[] };

export function parsePattern(raw: string): Pattern {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && raw[i + 1] === '*') {
      current += '*';
      i++;
    } else if (c === '*') {
      segments.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (segments.length === 0) return { kind: 'exact', text: current };
  segments.push(current);
  return { kind: 'glob', segments };
}

/** True when `text` matches the segments of a glob (at least two: the pattern had a star). */
export function matchGlob(segments: readonly string[], text: string): boolean {
  const first = segments[0] ?? '';
  const last = segments[segments.length - 1] ?? '';
  if (segments.length < 2) return text === first;
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let pos = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const seg = segments[i] ?? '';
    if (seg === '') continue;
    const at = text.indexOf(seg, pos);
    if (at < 0 || at + seg.length > end) return false;
    pos = at + seg.length;
  }
  return true;
}

/** Lower-cases a pattern for case-insensitive matching. */
export function lowerPattern(p: Pattern): Pattern {
  return p.kind === 'exact'
    ? { kind: 'exact', text: p.text.toLowerCase() }
    : { kind: 'glob', segments: p.segments.map((s) => s.toLowerCase()) };
}
