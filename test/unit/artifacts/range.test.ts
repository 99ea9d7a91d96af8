import { describe, expect, it } from 'vitest';
import { ifRangeAllowsPartial, MAX_RANGES, parseRange } from '../../../src/artifacts/range.js';

const SIZE = 1000;
const r = (start: number, end: number) => ({ start, end });

describe('parseRange', () => {
  it.each([
    ['no header', undefined, { kind: 'full' }],
    ['closed range', 'bytes=0-99', { kind: 'ranges', ranges: [r(0, 99)] }],
    ['one byte', 'bytes=5-5', { kind: 'ranges', ranges: [r(5, 5)] }],
    ['open-ended', 'bytes=900-', { kind: 'ranges', ranges: [r(900, 999)] }],
    ['suffix', 'bytes=-100', { kind: 'ranges', ranges: [r(900, 999)] }],
    ['suffix longer than the file', 'bytes=-5000', { kind: 'ranges', ranges: [r(0, 999)] }],
    ['end past the end is clamped', 'bytes=990-5000', { kind: 'ranges', ranges: [r(990, 999)] }],
    ['huge end is clamped', 'bytes=0-99999999999999999999999', { kind: 'ranges', ranges: [r(0, 999)] }],
    ['last byte', 'bytes=999-999', { kind: 'ranges', ranges: [r(999, 999)] }],
    ['multiple, sorted', 'bytes=500-599,0-9', { kind: 'ranges', ranges: [r(0, 9), r(500, 599)] }],
    ['overlapping are coalesced', 'bytes=0-50,40-100,95-120', { kind: 'ranges', ranges: [r(0, 120)] }],
    ['adjacent are coalesced', 'bytes=0-9,10-19', { kind: 'ranges', ranges: [r(0, 19)] }],
    ['contained range disappears', 'bytes=0-100,10-20,200-300', { kind: 'ranges', ranges: [r(0, 100), r(200, 300)] }],
    ['suffix overlapping an open range', 'bytes=950-,-100', { kind: 'ranges', ranges: [r(900, 999)] }],
    ['whitespace tolerated', 'bytes = 0 - 9 ,  20-29 ', { kind: 'ranges', ranges: [r(0, 9), r(20, 29)] }],
    ['unit is case-insensitive', 'Bytes=0-9', { kind: 'ranges', ranges: [r(0, 9)] }],
    ['empty list elements skipped', 'bytes=0-9,,20-29,', { kind: 'ranges', ranges: [r(0, 9), r(20, 29)] }],
    ['unsatisfiable dropped when another is satisfiable', 'bytes=5000-6000,0-9', { kind: 'ranges', ranges: [r(0, 9)] }],
    ['start at the size', 'bytes=1000-', { kind: 'unsatisfiable' }],
    ['start past the size', 'bytes=2000-3000', { kind: 'unsatisfiable' }],
    ['zero suffix', 'bytes=-0', { kind: 'unsatisfiable' }],
    ['all unsatisfiable', 'bytes=1000-1001,-0', { kind: 'unsatisfiable' }],
  ] as const)('%s: %j', (_name, header, expected) => {
    expect(parseRange(header, SIZE)).toEqual(expected);
  });

  it.each([
    ['bytes=abc', 'is not of the form'],
    ['bytes=', 'names no range'],
    ['bytes=-', 'is not of the form'],
    ['bytes=5-1', 'ends before it starts'],
    ['bytes=0-9,5-1', 'ends before it starts'],
    ['bytes=1-2-3', 'is not of the form'],
    ['bytes=0x10-20', 'is not of the form'],
    ['bytes=-1-2', 'is not of the form'],
    ['bytes=+1-2', 'is not of the form'],
    ['items=0-1', 'unit "items" is not supported'],
    ['0-1', 'is not of the form bytes=first-last'],
    ['bytes 0-1', 'is not of the form bytes=first-last'],
  ])('malformed %j', (header, reason) => {
    const parsed = parseRange(header, SIZE);
    expect(parsed.kind).toBe('malformed');
    expect(parsed.kind === 'malformed' && parsed.reason).toContain(reason);
  });

  it('checks syntax before satisfiability: garbage after an unsatisfiable range is malformed', () => {
    expect(parseRange('bytes=5000-,x', SIZE).kind).toBe('malformed');
  });

  it(`ignores a header with more than ${MAX_RANGES} ranges (whole body)`, () => {
    const many = Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',');
    expect(parseRange(`bytes=${many}`, SIZE)).toEqual({ kind: 'full' });
    const exactly = Array.from({ length: MAX_RANGES }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',');
    const parsed = parseRange(`bytes=${exactly}`, SIZE);
    expect(parsed.kind === 'ranges' && parsed.ranges.length).toBe(MAX_RANGES);
  });

  it('treats every range of an empty file as unsatisfiable', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-10', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('ifRangeAllowsPartial', () => {
  const etag = '"2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"';
  const mtime = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
  const lastModified = new Date(mtime).toUTCString();

  it.each([
    ['absent', undefined, true],
    ['the strong ETag', etag, true],
    ['the strong ETag with spaces', `  ${etag} `, true],
    ['another ETag', '"0000000000000000000000000000000000000000"', false],
    ['the weak form of the ETag', `W/${etag}`, false],
    ['the unquoted sha1 (not an entity-tag)', etag.slice(1, -1), false],
    ['the Last-Modified date', lastModified, true],
    ['the same second in another date format', 'Tuesday, 02-Jan-24 03:04:05 GMT', true],
    ['an older date', new Date(mtime - 1000).toUTCString(), false],
    ['a newer date', new Date(mtime + 1000).toUTCString(), false],
    ['garbage', 'yesterday-ish', false],
  ])('%s -> %s', (_name, header, allowed) => {
    expect(ifRangeAllowsPartial(header, etag, mtime)).toBe(allowed);
  });
});
