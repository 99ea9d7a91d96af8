import { describe, expect, it } from 'vitest';
import type { PollRecord } from '../../../src/store/port.js';
import { pollRecordArgs } from '../../../src/store/redis/poll-records.js';

/** A record as recordPolls takes it (the port's type, not a copy of its shape; not named Record, TypeScript's own). */
type Poll = PollRecord & { readonly id: number };
/** What the times argument must equal: every number as String() writes it, separated by single spaces. */
const expectedTimes = (polls: readonly Poll[]): string => polls.map((p) => `${p.id} ${p.at}`).join(' ');
/** The addresses argument read back the way the script reads it: "id length address", length in bytes. */
function readAddresses(packed: Buffer): [string, string][] {
  const out: [string, string][] = [];
  for (let pos = 0; pos < packed.length;) {
    const head = /^(\d+) (\d+) /.exec(packed.subarray(pos, pos + 40).toString('latin1'));
    if (head === null) throw new Error(`no "id length " at byte ${pos}`);
    const start = pos + head[0].length;
    pos = start + Number(head[2]);
    out.push([head[1]!, packed.subarray(start, pos).toString('utf8')]);
  }
  return out;
}
const times = (pairs: readonly (readonly [number, number])[]): Poll[] => pairs.map(([id, at]) => ({ id, at, address: null }));
const timesOf = (polls: readonly Poll[]): string => pollRecordArgs(polls)[0].toString('latin1');

describe('pollRecordArgs', () => {
  it('writes ids and times as String() does, digit counts at every boundary', () => {
    const edges = [0, -0, 1, 9, 10, 99, 100, 999_999, 1_000_000, 1_764_000_000_123, Number.MAX_SAFE_INTEGER];
    const polls = times(edges.map((n, i) => [Math.abs(edges[edges.length - 1 - i]!), n] as const));
    expect(timesOf(polls)).toBe(expectedTimes(polls));
  });

  it('falls back to String() for times that are not whole numbers >= 0, the longest included', () => {
    const odd = [-5, -0.5, 1000.5, 2 ** 53, 1e21, 5e-324, -1.7976931348623157e308, -2.2250738585072014e-308];
    const polls = times(odd.map((at, i) => [Number.MAX_SAFE_INTEGER - i, at] as const));
    expect(timesOf(polls)).toBe(expectedTimes(polls));
    const longest = times([1, 2, 3].map((i) => [Number.MAX_SAFE_INTEGER - i, -1.7976931348623157e308] as const));
    expect(timesOf(longest)).toBe(expectedTimes(longest));
  });

  it('packs any address, by its length in bytes, and only those given', () => {
    const odd = ['http://10.0.0.1', '', ' 12 3 ', 'x\ny\0z', 'amqp://zürich-\u00e9\u4e2d\u{1F600}', '7 7 7'];
    const big = (i: number): number => Number.MAX_SAFE_INTEGER - i;
    const polls: Poll[] = [{ id: 5, at: 1, address: null }, ...odd.map((address, i) => ({ id: big(i), at: 2, address }))];
    expect(readAddresses(pollRecordArgs(polls)[1])).toEqual(odd.map((a, i) => [String(big(i)), a]));
    expect(pollRecordArgs([{ id: 1, at: 1, address: null }])[1].length).toBe(0);
  });

  it('matches String() for random batches and is empty for none', () => {
    let seed = 7;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const polls = times(Array.from({ length: 1 + Math.floor(random() * 300) }, () => [
        Math.floor(random() * 10 ** Math.floor(random() * 16)), Math.floor(random() * 2 ** 41),
      ] as const));
      expect(timesOf(polls)).toBe(expectedTimes(polls));
    }
    expect(pollRecordArgs([]).map((b) => b.length)).toEqual([0, 0]);
  });
});
