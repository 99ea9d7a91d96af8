import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { parseListParams, planIndex, queryEntities, type ListOptions } from '../../../src/query/index.js';
import { CTX, dev, devFields, type Dev } from './fixture.js';

const fleet: Dev[] = Array.from({ length: 120 }, (_, i) =>
  dev({
    id: i + 1,
    name: `device-${String(i + 1).padStart(3, '0')}`,
    tags: i % 3 === 0 ? ['prod'] : ['test'],
    updateStatus: i % 4 === 0 ? 'error' : 'in_sync',
    weight: i % 5 === 0 ? null : i % 7,
  }),
);
const opts: ListOptions<Dev> = {
  defaultLimit: 50,
  maxLimit: 500,
  sortFields: devFields,
  defaultSort: [{ field: 'createdat', dir: 'ASC' }], // createdAt = 1000 + id
  filterFields: devFields,
};
const run = (qs: string, candidates: Iterable<Dev> = fleet) =>
  queryEntities(candidates, parseListParams(new URLSearchParams(qs), opts), devFields, CTX);

describe('queryEntities', () => {
  it('pages all entities with the default sort', () => {
    const page = run('');
    expect(page.total).toBe(120);
    expect(page.content).toHaveLength(50);
    expect(page.content[0]?.id).toBe(1);
    expect(run('offset=100').content.map((d) => d.id)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i));
    expect(run('offset=500')).toEqual({ content: [], total: 120 });
  });

  it('filters, counts all matches and pages them', () => {
    const page = run('q=tag==prod;updatestatus==error&sort=name:DESC&limit=3&offset=1');
    // prod: i % 3 == 0; error: i % 4 == 0 -> i % 12 == 0 -> ids 1, 13, ..., 109 (10 matches)
    expect(page.total).toBe(10);
    expect(page.content.map((d) => d.id)).toEqual([97, 85, 73]);
  });

  it('sorts by several fields with nulls last in ASC', () => {
    const page = run('q=id=in=(dev-1,dev-2,dev-6,dev-11,dev-8)&sort=weight:ASC,name:DESC');
    expect(page.content.map((d) => [d.id, d.weight])).toEqual([[8, 0], [2, 1], [11, null], [6, null], [1, null]]);
  });

  it('parses q itself when the params carry only the raw text', () => {
    const params = parseListParams(new URLSearchParams('q=name==device-00*'), { ...opts, filterFields: undefined });
    expect(params.filter).toBeUndefined();
    expect(queryEntities(fleet, params, devFields, CTX).total).toBe(9);
  });

  it('gives the same answer from index candidates as from a full scan', () => {
    const q = 'tag==PROD;weight=gt=2';
    const params = parseListParams(new URLSearchParams(`q=${encodeURIComponent(q)}&limit=500`), opts);
    const plan = params.filter === undefined ? undefined : planIndex(params.filter);
    expect(plan).toEqual({ index: 'tag', keys: ['prod'], unique: false, field: 'tag.name' });
    // a stand-in for store.members: ids under the key of the tag index
    const byTag = new Map<string, Dev[]>();
    for (const d of fleet) for (const t of d.tags) byTag.set(t.toLowerCase(), [...(byTag.get(t.toLowerCase()) ?? []), d]);
    const candidates = (plan?.keys ?? []).flatMap((k) => byTag.get(k) ?? []);
    expect(queryEntities(candidates, params, devFields, CTX)).toEqual(queryEntities(fleet, params, devFields, CTX));
    expect(queryEntities(candidates, params, devFields, CTX).total).toBeGreaterThan(0);
  });

  it('accepts any iterable', () => {
    function* gen() {
      yield* fleet;
    }
    expect(run('q=updatestatus==error', gen()).total).toBe(30);
  });

  it('surfaces a bad q as an AppError', () => {
    const params = { offset: 0, limit: 10, sort: [], q: 'bogus==1' };
    expect(() => queryEntities(fleet, params, devFields, CTX)).toThrow(AppError);
  });

  // how fast: bench/mgmt-targets.ts measures it; a test asserts the answer, not the time
  it('handles 20k entities', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => dev({ id: i + 1, name: `n${(i * 7919) % 20_000}`, tags: [`t${i % 50}`] }));
    const page = run('q=name==n1*,tag=in=(t1,t2)&sort=name:ASC&limit=100', big);
    expect(page.content).toHaveLength(100);
    expect(page.total).toBeGreaterThan(1000);
  });
});
