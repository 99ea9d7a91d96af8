import { describe, expect, it } from 'vitest';
import { parseListParams, parseSort, type ListOptions } from '../../../src/query/index.js';
import { appErrorOf as errorOf } from '../../helpers/app-error.js';
import { devFields, type Dev } from './fixture.js';

const opts: ListOptions<Dev> = {
  defaultLimit: 50,
  maxLimit: 500,
  sortFields: devFields,
  defaultSort: [{ field: 'controllerid', dir: 'ASC' }],
};
const parse = (qs: string, o: ListOptions<Dev> = opts) => parseListParams(new URLSearchParams(qs), o);

describe('parseListParams', () => {
  it('applies the defaults when nothing is given', () => {
    expect(parse('')).toEqual({ offset: 0, limit: 50, sort: [{ field: 'controllerid', dir: 'ASC' }] });
  });

  it('treats empty parameters as absent', () => {
    expect(parse('offset=&limit=&sort=&q=')).toEqual({ offset: 0, limit: 50, sort: [{ field: 'controllerid', dir: 'ASC' }] });
  });

  it.each([
    ['offset=10&limit=20', 10, 20],
    ['offset=0&limit=1', 0, 1],
    ['limit=500', 0, 500],
    ['offset=2147483647', 2147483647, 50],
    ['offset=%2B3&limit=007', 3, 7],
    // clamped as hawkBit's PagingUtility does
    ['limit=9000', 0, 500],
    ['limit=501', 0, 500],
    ['limit=0', 0, 50],
    ['limit=-5', 0, 50],
    ['offset=-1', 0, 50],
    ['offset=-2147483648&limit=-2147483648', 0, 50],
  ])('accepts %s', (qs, offset, limit) => {
    expect(parse(qs)).toMatchObject({ offset, limit });
  });

  it.each([
    ['limit=abc', "limit must be an integer, got 'abc'"],
    ['limit=1.5', "limit must be an integer, got '1.5'"],
    ['limit=1e2', "limit must be an integer, got '1e2'"],
    ['limit= 5', "limit must be an integer, got ' 5'"],
    ['offset=x', "offset must be an integer, got 'x'"],
    ['offset=2147483648', 'offset must be a 32-bit integer, got 2147483648'],
    ['limit=-2147483649', 'limit must be a 32-bit integer, got -2147483649'],
    ['offset=99999999999999999999', 'offset must be a 32-bit integer, got 99999999999999999999'],
    ['offset=999999999999999999999999', "offset must be an integer, got '999999999999999999999999'"],
    ['limit=1&limit=2', 'limit must be given at most once, got 2 values'],
    ['q=name==a&q=name==b', 'q must be given at most once, got 2 values'],
  ])('refuses %s with a 400 naming the parameter', (qs, message) => {
    const err = errorOf(() => parse(qs));
    expect(err.code).toBe('BAD_PARAMETER');
    expect(err.status).toBe(400);
    expect(err.message).toBe(message);
  });

  it('clamps to a smaller maxLimit', () => {
    expect(parse('limit=101', { ...opts, maxLimit: 100 })).toMatchObject({ limit: 100 });
  });

  it('keeps q raw without filterFields and parses it with them', () => {
    expect(parse('q=name==a*')).toEqual(expect.objectContaining({ q: 'name==a*' }));
    expect(parse('q=name==a*').filter).toBeUndefined();
    const withFilter = parse('q=name==a*', { ...opts, filterFields: devFields });
    expect(withFilter.filter).toMatchObject({ kind: 'cmp', op: '==', values: ['a*'] });
  });

  it('fails early on a bad q when filterFields is given', () => {
    expect(errorOf(() => parse('q=nope==1', { ...opts, filterFields: devFields })).code).toBe('RSQL_FIELD');
  });
});

describe('parseSort', () => {
  it.each([
    ['name:ASC', [{ field: 'name', dir: 'ASC' }]],
    ['NAME:desc', [{ field: 'name', dir: 'DESC' }]],
    ['controllerId:Asc,createdAt:DESC', [{ field: 'controllerid', dir: 'ASC' }, { field: 'createdat', dir: 'DESC' }]],
    [' name : ASC , id:DESC ', [{ field: 'name', dir: 'ASC' }, { field: 'id', dir: 'DESC' }]],
    ['tag:ASC', [{ field: 'tag', dir: 'ASC' }]],
    ['assignedDs.Version:desc', [{ field: 'assignedds.version', dir: 'DESC' }]],
  ])('parses %s', (raw, expected) => {
    expect(parseSort(raw, devFields)).toEqual(expected);
  });

  it.each([
    ['name', 'SORT_SYNTAX', "sort term 'name' is not well formed: expected field:ASC or field:DESC"],
    ['name:ASC:x', 'SORT_SYNTAX', "sort term 'name:ASC:x' is not well formed: expected field:ASC or field:DESC"],
    [':ASC', 'SORT_SYNTAX', "sort term ':ASC' is not well formed: expected field:ASC or field:DESC"],
    ['name:', 'SORT_SYNTAX', "sort term 'name:' is not well formed: expected field:ASC or field:DESC"],
    ['name:ASC,', 'SORT_SYNTAX', "sort term '' is not well formed: expected field:ASC or field:DESC"],
    ['name:UP', 'SORT_DIRECTION', 'sort direction {UP} of field {name} is not supported, must be ASC or DESC'],
    ['name:ascending', 'SORT_DIRECTION', 'sort direction {ascending} of field {name} is not supported, must be ASC or DESC'],
    ['bogus:ASC', 'SORT_FIELD', 'sort field {bogus} is not supported, must be one of ['],
    ['attribute.hw:ASC', 'SORT_FIELD', 'sort field {attribute.hw} is not supported'],
    ['attribute:ASC', 'SORT_FIELD', 'sort field {attribute} is not supported'],
    [Array.from({ length: 17 }, () => 'name:ASC').join(','), 'SORT_SYNTAX', 'sort takes at most 16 terms, got 17'],
  ] as const)('refuses %s with %s', (raw, code, message) => {
    const err = errorOf(() => parseSort(raw, devFields));
    expect(err.code).toBe(code);
    expect(err.status).toBe(400);
    expect(err.message).toContain(message);
  });

  it('lists the sortable fields in the unknown-field message', () => {
    const err = errorOf(() => parseSort('bogus:ASC', devFields));
    expect(err.message).toContain('controllerid');
    expect(err.message).not.toContain('attribute');
  });

  it('is used by parseListParams', () => {
    expect(parse('sort=name:DESC').sort).toEqual([{ field: 'name', dir: 'DESC' }]);
    expect(errorOf(() => parse('sort=name:sideways')).code).toBe('SORT_DIRECTION');
  });
});
