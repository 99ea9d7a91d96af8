/**
 * IPv4 address ranges written as CIDR blocks (`10.0.0.0/8`, or one address `192.0.2.7`), parsed once
 * into integer ranges, so a check is a few number compares (the poll's express lane reads the peer's
 * IPv4 as a 32-bit number).
 */

/** An inclusive range of IPv4 addresses as unsigned 32-bit numbers. */
export interface Ipv4Range {
  readonly first: number;
  readonly last: number;
}

const QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or -1. */
export function ipv4Number(text: string): number {
  const m = QUAD.exec(text);
  if (m === null) return -1;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255 || (m[i]!.length > 1 && m[i]!.startsWith('0'))) return -1;
    n = n * 256 + octet;
  }
  return n;
}

/** `a.b.c.d/n` (n 0-32; the address's bits beyond n must be zero) or `a.b.c.d`, else undefined. */
export function parseCidr(text: string): Ipv4Range | undefined {
  const slash = text.indexOf('/');
  const ip = ipv4Number(slash === -1 ? text : text.slice(0, slash));
  if (ip < 0) return undefined;
  const bits = slash === -1 ? 32 : /^\d{1,2}$/.test(text.slice(slash + 1)) ? Number(text.slice(slash + 1)) : -1;
  if (bits < 0 || bits > 32) return undefined;
  const size = 2 ** (32 - bits);
  if (ip % size !== 0) return undefined;
  return { first: ip, last: ip + size - 1 };
}

/** The CIDR blocks as ranges (each must parse: config.yaml is validated before). */
export function ipv4Ranges(cidrs: readonly string[]): readonly Ipv4Range[] {
  return cidrs.map((c) => {
    const range = parseCidr(c);
    if (range === undefined) throw new TypeError(`not an IPv4 CIDR block: ${c}`);
    return range;
  });
}

/** The address (an unsigned 32-bit number; negative for none) lies in one of the ranges. */
export function inRanges(ranges: readonly Ipv4Range[], ip: number): boolean {
  for (const r of ranges) if (ip >= r.first && ip <= r.last) return true;
  return false;
}
