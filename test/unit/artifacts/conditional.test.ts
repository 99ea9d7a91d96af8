import { describe, expect, it } from 'vitest';
import { evaluatePreconditions, httpDate } from '../../../src/artifacts/conditional.js';

const sha1 = '2fd4e1c67a2d28fced849ee1bb76e7391b93eb12';
const etag = `"${sha1}"`;
const mtime = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const lastModified = httpDate(mtime);
const before = httpDate(mtime - 60_000);
const after = httpDate(mtime + 60_000);

describe('evaluatePreconditions', () => {
  it.each([
    ['no conditions', {}, 'proceed'],
    ['If-Match with the ETag', { 'if-match': etag }, 'proceed'],
    ['If-Match with the bare sha1 (hawkBit clients)', { 'if-match': sha1 }, 'proceed'],
    ['If-Match in a list', { 'if-match': `"aaa", ${etag}` }, 'proceed'],
    ['If-Match *', { 'if-match': '*' }, 'proceed'],
    ['If-Match with another ETag', { 'if-match': '"0000"' }, 'failed'],
    ['If-Match with the weak ETag (strong comparison)', { 'if-match': `W/${etag}` }, 'failed'],
    ['If-Match with garbage', { 'if-match': '"unterminated' }, 'failed'],
    ['If-Match beats If-None-Match', { 'if-match': '"0000"', 'if-none-match': etag }, 'failed'],
    ['If-Unmodified-Since after the change', { 'if-unmodified-since': after }, 'proceed'],
    ['If-Unmodified-Since at the change', { 'if-unmodified-since': lastModified }, 'proceed'],
    ['If-Unmodified-Since before the change', { 'if-unmodified-since': before }, 'failed'],
    ['If-Unmodified-Since unparsable is ignored', { 'if-unmodified-since': 'soon' }, 'proceed'],
    ['If-Unmodified-Since ignored when If-Match is present', { 'if-match': etag, 'if-unmodified-since': before }, 'proceed'],
    ['If-None-Match with the ETag', { 'if-none-match': etag }, 'not-modified'],
    ['If-None-Match with the weak ETag (weak comparison)', { 'if-none-match': `W/${etag}` }, 'not-modified'],
    ['If-None-Match *', { 'if-none-match': '*' }, 'not-modified'],
    ['If-None-Match with another ETag', { 'if-none-match': '"0000", "1111"' }, 'proceed'],
    ['If-Modified-Since at the change', { 'if-modified-since': lastModified }, 'not-modified'],
    ['If-Modified-Since before the change', { 'if-modified-since': before }, 'proceed'],
    ['If-Modified-Since ignored when If-None-Match is present', { 'if-none-match': '"0000"', 'if-modified-since': after }, 'proceed'],
  ])('%s -> %s', (_name, headers, kind) => {
    expect(evaluatePreconditions(headers, sha1, mtime).kind).toBe(kind);
  });

  it('names the ETag in the failure reason', () => {
    const result = evaluatePreconditions({ 'if-match': '"0000"' }, sha1, mtime);
    expect(result).toEqual({ kind: 'failed', reason: `If-Match "0000" does not match the artifact's ETag ${etag}` });
  });

  it('formats HTTP dates as IMF-fixdate', () => {
    expect(lastModified).toBe('Tue, 02 Jan 2024 03:04:05 GMT');
  });
});
