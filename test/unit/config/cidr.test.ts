import { describe, expect, it } from 'vitest';
import { inRanges, ipv4Number, ipv4Ranges, parseCidr } from '../../../src/config/cidr.js';

describe('IPv4 CIDR blocks', () => {
  it('parses blocks and single addresses into inclusive integer ranges', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ first: 0x0a000000, last: 0x0affffff });
    expect(parseCidr('172.16.0.0/12')).toEqual({ first: 0xac100000, last: 0xac1fffff });
    expect(parseCidr('192.0.2.7')).toEqual({ first: 0xc0000207, last: 0xc0000207 });
    expect(parseCidr('0.0.0.0/0')).toEqual({ first: 0, last: 0xffffffff });
    expect(parseCidr('255.255.255.255/32')).toEqual({ first: 0xffffffff, last: 0xffffffff });
  });

  it.each(['10.0.0.1/8', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/-1', '256.0.0.0/8', '10.0.0/8', '010.0.0.0/8', '::1/128', 'localhost', ''])(
    'refuses %j', (text) => expect(parseCidr(text)).toBeUndefined(),
  );

  it('tells whether an address (as a number, or -1 for none) lies in a range', () => {
    const ranges = ipv4Ranges(['127.0.0.0/8', '192.168.0.0/16']);
    expect(inRanges(ranges, ipv4Number('127.0.0.1'))).toBe(true);
    expect(inRanges(ranges, ipv4Number('192.168.255.255'))).toBe(true);
    expect(inRanges(ranges, ipv4Number('192.169.0.0'))).toBe(false);
    expect(inRanges(ranges, ipv4Number('110.0.0.1'))).toBe(false); // hawkBit's unanchored pattern would match 10.0.0.1 inside it
    expect(inRanges(ranges, ipv4Number('::1'))).toBe(false);
    expect(inRanges([], ipv4Number('127.0.0.1'))).toBe(false);
    expect(() => ipv4Ranges(['nope'])).toThrow(TypeError);
  });
});
