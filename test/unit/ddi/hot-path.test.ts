import { describe, expect, it } from 'vitest';
import { tokensEqual } from '../../../src/ddi/auth.js';
import { etagOf, noneMatch } from '../../../src/http/etag.js';

describe('token comparison', () => {
  it.each([
    ['abc123', 'abc123', true],
    ['abc124', 'abc123', false],
    ['abc12', 'abc123', false],
    ['abc1234', 'abc123', false],
    ['', 'abc123', false],
    ['', '', false], // an empty token never authenticates
    ['x', '', false],
  ])('%j vs %j -> %s', (presented, expected, result) => {
    expect(tokensEqual(presented, expected)).toBe(result);
    // the same token read in place after a scheme (the express lane's way)
    expect(tokensEqual(`TargetToken ${presented}`, expected, 'TargetToken '.length)).toBe(result);
  });
  it('reads the presented token from the given index on', () => {
    expect(tokensEqual('TargetToken abc123', 'abc123', 12)).toBe(true);
    expect(tokensEqual('TargetToken abc123', 'Token abc123', 6)).toBe(true);
    expect(tokensEqual('TargetToken abc123', 'abc12', 12)).toBe(false);
    expect(tokensEqual('TargetToken abc123', 'bc123', 12)).toBe(false);
    expect(tokensEqual('abc', 'abc', 5)).toBe(false); // nothing presented past the end
  });
});

describe('poll ETags', () => {
  it('are quoted, stable for the same body and differ for different bodies', () => {
    const a = etagOf('{"config":{"polling":{"sleep":"00:05:00"}}}');
    expect(a).toMatch(/^"0[0-9a-f]{16}"$/);
    expect(etagOf('{"config":{"polling":{"sleep":"00:05:00"}}}')).toBe(a);
    expect(etagOf('{"config":{"polling":{"sleep":"00:05:01"}}}')).not.toBe(a);
  });
  it('tell apart many similar bodies (links of different devices and actions)', () => {
    const tags = new Set<string>();
    for (let d = 0; d < 2000; d++) for (let a = 0; a < 10; a++) tags.add(etagOf(`{"_links":{"deploymentBase":{"href":"http://h/T/controller/v1/dev-${d}/deploymentBase/${a}?c=${d * a}"}}}`));
    expect(tags.size).toBe(20_000);
  });
  it('match If-None-Match lists, weak prefixes and *', () => {
    expect(noneMatch('W/"0abc", "0def"', '"0def"')).toBe(true);
    expect(noneMatch('*', '"0def"')).toBe(true);
    expect(noneMatch('"0abc"', '"0def"')).toBe(false);
    expect(noneMatch(undefined, '"0def"')).toBe(false);
  });
});
