import { describe, expect, it } from 'vitest';
import { matchGlob, parsePattern } from '../../../src/query/index.js';

const matches = (pattern: string, text: string): boolean => {
  const p = parsePattern(pattern);
  return p.kind === 'exact' ? p.text === text : matchGlob(p.segments, text);
};

describe('parsePattern', () => {
  it.each([
    ['abc', { kind: 'exact', text: 'abc' }],
    ['', { kind: 'exact', text: '' }],
    ['a\\*b', { kind: 'exact', text: 'a*b' }],
    ['a\\b', { kind: 'exact', text: 'a\\b' }],
    ['a\\', { kind: 'exact', text: 'a\\' }],
    ['*', { kind: 'glob', segments: ['', ''] }],
    ['a*b*c', { kind: 'glob', segments: ['a', 'b', 'c'] }],
    ['\\**', { kind: 'glob', segments: ['*', ''] }],
    ['a**', { kind: 'glob', segments: ['a', '', ''] }],
  ])('%j', (raw, expected) => {
    expect(parsePattern(raw)).toEqual(expected);
  });
});

describe('matchGlob', () => {
  it.each([
    ['a*', 'abc', true],
    ['a*', 'a', true],
    ['a*', 'ba', false],
    ['*c', 'abc', true],
    ['*c', 'cb', false],
    ['a*c', 'ac', true],
    ['a*c', 'abbbc', true],
    ['a*c', 'abcb', false],
    ['ab*bc', 'abc', false], // prefix and suffix must not overlap
    ['ab*bc', 'abbc', true],
    ['*b*b*', 'abab', true],
    ['*b*b*', 'ab', false],
    ['a*b*c', 'aXcXbXc', true],
    ['a*b*c', 'acb', false],
    ['*aa*aa*', 'aaa', false],
    ['*aa*aa*', 'aaaa', true],
    ['*', '', true],
    ['**', 'x', true],
    ['a\\*b*', 'a*bc', true],
    ['a\\*b*', 'aXbc', false],
    ['.*', 'anything', false],
    ['[a]*', '[a]z', true],
  ])('%j ~ %j = %s', (pattern, text, expected) => {
    expect(matches(pattern, text)).toBe(expected);
  });

  // a backtracking matcher would not answer these within the test's timeout (no time is asserted)
  it('answers patterns that make backtracking regexes explode', () => {
    const pattern = `${'*a'.repeat(1000)}*b`;
    const text = 'a'.repeat(4000);
    expect(matches(pattern, text)).toBe(false);
    expect(matches(pattern, `${text}b`)).toBe(true);
  });
});
