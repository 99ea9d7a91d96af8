import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { compareBy, sortEntities, type SortSpec } from '../../../src/query/index.js';
import { dev, devFields, type Dev } from './fixture.js';

const list: Dev[] = [
  dev({ id: 4, name: 'beta', weight: 2, lastPoll: null, tags: ['b'], autoConfirm: true }),
  dev({ id: 2, name: 'Alpha', weight: null, lastPoll: 50, tags: [], autoConfirm: false }),
  dev({ id: 5, name: 'alpha', weight: 2, lastPoll: 10, tags: ['a', 'z'], autoConfirm: true }),
  dev({ id: 1, name: 'Gamma', weight: -1, lastPoll: null, tags: ['c'], autoConfirm: false }),
  dev({ id: 3, name: 'alpha', weight: null, lastPoll: 10, tags: ['B'], autoConfirm: false }),
];

const order = (sort: SortSpec[]) => [...list].sort(compareBy(sort, devFields)).map((d) => d.id);
const orderDecorated = (sort: SortSpec[]) => sortEntities([...list], sort, devFields).map((d) => d.id);

describe.each([
  ['compareBy', order],
  ['sortEntities', orderDecorated],
])('%s', (_name, sortIds) => {
  it.each([
    // strings: case-insensitive first, then by code unit (Alpha < alpha), then id
    [[{ field: 'name', dir: 'ASC' }], [2, 3, 5, 4, 1]],
    [[{ field: 'name', dir: 'DESC' }], [1, 4, 3, 5, 2]],
    // numbers with nulls: last in ASC, first in DESC; ties by id ascending
    [[{ field: 'weight', dir: 'ASC' }], [1, 4, 5, 2, 3]],
    [[{ field: 'weight', dir: 'DESC' }], [2, 3, 4, 5, 1]],
    [[{ field: 'lastcontrollerrequestat', dir: 'ASC' }], [3, 5, 2, 1, 4]],
    [[{ field: 'lastcontrollerrequestat', dir: 'DESC' }], [1, 4, 2, 3, 5]],
    // several terms
    [[{ field: 'weight', dir: 'ASC' }, { field: 'name', dir: 'DESC' }], [1, 4, 5, 3, 2]],
    // `id` is the query field (the controller id text here): 'dev-5' > 'dev-3'
    [[{ field: 'lastcontrollerrequestat', dir: 'ASC' }, { field: 'id', dir: 'DESC' }], [5, 3, 2, 4, 1]],
    // booleans: false before true
    [[{ field: 'autoconfirm', dir: 'ASC' }], [1, 2, 3, 4, 5]],
    [[{ field: 'autoconfirm', dir: 'DESC' }], [4, 5, 1, 2, 3]],
    // multi-valued: first value; no value is NULL
    [[{ field: 'tag', dir: 'ASC' }], [5, 3, 4, 1, 2]],
    // id only, and nothing at all: id order
    [[{ field: 'createdat', dir: 'DESC' }], [5, 4, 3, 2, 1]],
    [[], [1, 2, 3, 4, 5]],
  ] as [SortSpec[], number[]][])('%j', (sort, expected) => {
    expect(sortIds(sort)).toEqual(expected);
  });
});

describe('sorting', () => {
  it('is deterministic whatever the input order', () => {
    const sort: SortSpec[] = [{ field: 'weight', dir: 'ASC' }];
    const reversed = [...list].reverse();
    expect(sortEntities(reversed, sort, devFields).map((d) => d.id)).toEqual(order(sort));
  });

  it.each([
    [{ field: 'nosuch', dir: 'ASC' }],
    [{ field: 'attribute.hw', dir: 'ASC' }],
  ] as [SortSpec][])('refuses unknown sort field %j', (spec) => {
    expect(() => compareBy([spec], devFields)).toThrow(AppError);
    expect(() => sortEntities([], [spec], devFields)).toThrow(/sort field/);
  });
});
