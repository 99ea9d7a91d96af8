import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../../../src/http/json.js';
import { bool, id, int, name, str, text } from '../../../src/mgmt/kit/body.js';

/**
 * The scalar coercions of the Management body blocks, as Jackson 3 (hawkBit's defaults) applies
 * them: what it coerces, and what it refuses (StdDeserializer, CoercionConfigs). Issue 7 item 10.
 */
const read = (schema: z.ZodType, value: unknown): unknown => validate({ v: value }, z.object({ v: schema })).v;
const refuses = (schema: z.ZodType, value: unknown): string => {
  try {
    read(schema, value);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
};

describe('Management body blocks coerce scalars as Jackson does', () => {
  it.each([
    [3, 3], ['3', 3], [' 3 ', 3], ['+3', 3], ['-3', -3], ['007', 7], [7.9, 7], [-7.9, -7], ['1000', 1000],
  ])('int reads %j as %j', (input, expected) => {
    expect(read(int(-10, 1000), input)).toBe(expected);
  });

  it.each([['abc'], ['1.5'], ['1e3'], ['0x10'], [true], [[3]], [{ v: 3 }], [null], [''], ['null'], ['1001']])('int refuses %j', (input) => {
    expect(refuses(int(-10, 1000), input)).toMatch(/^body\.v: /);
  });

  it.each([[undefined, undefined], [null, null], ['', null], ['null', null], [' null ', null], ['12', 12]])('int().nullish() reads %j as %j', (input, expected) => {
    expect(read(int(0, 1000).nullish(), input)).toBe(expected);
  });

  it('names the field and the value it refused', () => {
    expect(refuses(id(), 'abc')).toBe('body.v: expected a number, got "abc"');
    expect(refuses(id(), '0')).toBe('body.v: must be at least 1, got 0');
  });

  it.each([
    [true, true], [false, false], ['true', true], ['True', true], ['TRUE', true], [' false ', false], ['False', false], ['FALSE', false],
    [0, false], [1, true], [-2, true],
  ])('bool reads %j as %j', (input, expected) => {
    expect(read(bool(), input)).toBe(expected);
  });

  it.each([['yes'], ['1'], ['tRue'], [0.5], [[true]], [{}], [null], ['']])('bool refuses %j', (input) => {
    expect(refuses(bool(), input)).toMatch(/^body\.v: /);
  });

  it.each([['', null], ['null', null], [null, null], [undefined, undefined], ['false', false]])('bool().nullish() reads %j as %j', (input, expected) => {
    expect(read(bool().nullish(), input)).toBe(expected);
  });

  it.each([['x', 'x'], [42, '42'], [1.5, '1.5'], [true, 'true'], ['', ''], ['null', 'null']])('strings read %j as %j', (input, expected) => {
    expect(read(str(), input)).toBe(expected);
    expect(read(text(10), input)).toBe(expected);
  });

  it('strings refuse arrays and objects, and keep their own checks after coercion', () => {
    expect(refuses(str(), ['a'])).toMatch(/^body\.v: expected a string/);
    expect(refuses(text(10), { a: 1 })).toMatch(/^body\.v: expected a string/);
    expect(read(name, 12345)).toBe('12345');
    expect(refuses(text(3), 12345)).toMatch(/at most 3 characters/);
    expect(read(text(3), null)).toBeNull();
  });
});
