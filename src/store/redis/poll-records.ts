import type { PollRecord } from '../port.js';

/** Bytes a time takes at most: an id (a safe integer, 16 digits), a time as String() writes it (24), two spaces. */
const MAX_TIME_BYTES = 16 + 24 + 2;
/** Bytes an address takes besides its own: the id, its length in bytes (a safe integer), two spaces. */
const ADDRESS_OVERHEAD = 16 + 16 + 2;
const SPACE = 0x20;
const ZERO = 0x30;

type Polls = readonly (PollRecord & { readonly id: number })[];

/**
 * A batch of poll records as the two arguments of the record-polls script (scripts.ts): the times
 * as "id time id time ...", and the addresses as "id length address" one after another (length in
 * bytes, so an address may hold any character). The numbers' digits and the addresses' bytes are
 * written straight into the buffers: a poll costs the young generation nothing here, where node-redis
 * makes several strings of every argument (two per poll, four with an address: about 550 of the 1,150
 * bytes a poll with an open action allocated). A time that is not a whole number >= 0 (never one
 * from a clock) is written as String() writes it.
 */
export function pollRecordArgs(polls: Polls): [times: Buffer, addresses: Buffer] {
  const times = Buffer.allocUnsafe(polls.length * MAX_TIME_BYTES);
  let end = 0;
  let addressBytes = 0;
  for (const p of polls) {
    end = writeNumber(times, end, p.id);
    times[end++] = SPACE;
    end = writeNumber(times, end, p.at);
    times[end++] = SPACE;
    if (p.address !== null) addressBytes += ADDRESS_OVERHEAD + Buffer.byteLength(p.address);
  }
  const addresses = Buffer.allocUnsafe(addressBytes);
  let at = 0;
  for (const p of polls) {
    if (p.address === null) continue;
    at = writeNumber(addresses, at, p.id);
    addresses[at++] = SPACE;
    at = writeNumber(addresses, at, Buffer.byteLength(p.address));
    addresses[at++] = SPACE;
    at += addresses.write(p.address, at);
  }
  return [times.subarray(0, Math.max(0, end - 1)), addresses.subarray(0, at)];
}

function writeNumber(buf: Buffer, offset: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) return offset + buf.write(String(n), offset, 'latin1');
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = n;
  for (let i = offset + digits - 1; i >= offset; i--) {
    buf[i] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return offset + digits;
}
