import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../src/domain/errors.js';
import { acceptSingleAsArray, parseJsonBody, validate } from '../../../src/http/json.js';

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, message: (err as AppError).message };
  }
  throw new Error('expected an AppError');
}

describe('JSON bodies', () => {
  it('parses valid JSON', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
  });

  it.each([
    [undefined, 'body: required request body is missing'],
    [Buffer.alloc(0), 'body: required request body is missing'],
    [Buffer.from('{"a":1'), 'body: truncated JSON'],
    [Buffer.from('{"a":"unterminated'), 'body: truncated JSON'],
    [Buffer.from('{"a":1,}'), 'body: malformed JSON'],
    [Buffer.from('nope'), 'body: malformed JSON'],
    [Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), 'body: is not valid UTF-8'],
  ])('refuses %j with 400 naming the problem', (body, message) => {
    const f = failure(() => parseJsonBody(body));
    expect(f.code).toBe('BODY_NOT_READABLE');
    expect(f.message).toContain(message);
  });

  const item = z.object({ name: z.string().min(1).max(8), limit: z.number().int().min(1).max(500).optional(), kind: z.enum(['a', 'b']).optional() });

  it.each([
    [[{}], 'body[0].name: required'],
    [[{ name: 5 }], 'body[0].name: expected a string, got 5'],
    [[{ name: 'x', limit: 9000 }], 'body[0].limit: must be at most 500, got 9000'],
    [[{ name: 'x', limit: 0 }], 'body[0].limit: must be at least 1, got 0'],
    [[{ name: 'toolongname' }], 'body[0].name: must be at most 8 characters long, got 11'],
    [[{ name: 'x', kind: 'c' }], 'body[0].kind: must be one of "a", "b", got "c"'],
    ['text', 'body: expected an array, got "text"'],
  ])('names the field and the problem for %j', (value, message) => {
    const f = failure(() => validate(value, z.array(item)));
    expect(f.code).toBe('BODY_NOT_READABLE');
    expect(f.message).toBe(message);
  });

  it('accepts a single object where an array is expected', () => {
    const schema = acceptSingleAsArray(item);
    expect(validate({ name: 'x' }, schema)).toEqual([{ name: 'x' }]);
    expect(validate([{ name: 'x' }, { name: 'y' }], schema)).toHaveLength(2);
    expect(failure(() => validate({ name: 3 }, schema)).message).toBe('body[0].name: expected a string, got 3');
  });

  it('tolerates unknown fields (hawkBit ignores them)', () => {
    expect(validate({ name: 'x', extra: true }, item)).toEqual({ name: 'x' });
  });
});
