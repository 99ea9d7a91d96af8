import { describe, expect, it } from 'vitest';
import { bool, defineFields, indexPlans, parseFilter, planIndex } from '../../../src/query/index.js';
import { devFields, STATUSES, type Dev } from './fixture.js';

const plan = (q: string) => planIndex(parseFilter(q, devFields));

describe('planIndex', () => {
  it.each([
    ['name==Alpha', { index: 'name', keys: ['alpha'], unique: false, field: 'name' }],
    ['id==Dev-7', { index: 'cid', keys: ['dev-7'], unique: true, field: 'id' }],
    ['tag==Prod', { index: 'tag', keys: ['prod'], unique: false, field: 'tag.name' }],
    ['tag=in=(a,B,a)', { index: 'tag', keys: ['a', 'b'], unique: false, field: 'tag.name' }],
    ['updatestatus==PENDING', { index: 'status', keys: ['pending'], unique: false, field: 'updatestatus' }],
    ['updatestatus=is=error', { index: 'status', keys: ['error'], unique: false, field: 'updatestatus' }],
    ['autoconfirm==TRUE', { index: 'autoconfirm', keys: ['true'], unique: false, field: 'autoconfirm' }],
    ['weight==05', { index: 'weight', keys: ['5'], unique: false, field: 'weight' }],
    ['name==a\\*b', { index: 'name', keys: ['a*b'], unique: false, field: 'name' }],
    ['name=in=(a*)', { index: 'name', keys: ['a*'], unique: false, field: 'name' }], // =in= is literal
  ])('uses the index for %s', (q, expected) => {
    expect(plan(q)).toEqual(expected);
  });

  it.each([
    ['name==Al*', 'wildcard'],
    ["name==''", 'empty matches NULL'],
    ['name=is=null', 'NULL'],
    ['name!=a', 'negation'],
    ['name=out=(a)', 'negation'],
    ['weight=gt=3', 'ordering'],
    ['description==x', 'no index'],
    ['attribute.hw==2', 'prefix field'],
    ['assignedds.version==1.0', 'exact index on a case-insensitive string field'],
    ['name==a,tag==b', 'top-level OR'],
    ['(name==a,tag==b);description==c', 'OR inside the AND chain'],
  ])('does not plan %s (%s)', (q) => {
    expect(plan(q)).toBeUndefined();
  });

  it.each([
    ['description==x;tag==prod;id==dev-1', 'cid'],
    ['tag=in=(a,b,c);name=in=(x,y)', 'name'],
    ['tag==a;name==b', 'tag'],
    ['name==b;tag==a', 'name'],
    ['tag=in=(a,b);updatestatus==error', 'status'],
    ['name==a*;(tag==x,tag==y);autoconfirm==true', 'autoconfirm'],
  ])('picks the most selective conjunct of %s', (q, index) => {
    expect(plan(q)?.index).toBe(index);
  });

  it('lists every usable plan, best first', () => {
    const plans = indexPlans(parseFilter('tag=in=(a,b);name==x;id==y;description==z', devFields));
    expect(plans.map((p) => p.index)).toEqual(['cid', 'name', 'tag']);
  });
});

describe('a field planned through an index keyed by another value', () => {
  // `synced` follows from the update status, so the status index answers it (as an action's `active` its status)
  const others = STATUSES.filter((s) => s !== 'in_sync');
  const fields = defineFields<Dev, string>({
    resource: 'target',
    id: (d) => d.id,
    fields: {
      synced: bool((d) => d.updateStatus === 'in_sync', {
        index: { name: 'status', exact: true, keys: (k) => (k === 'true' ? ['in_sync'] : k === 'false' ? others : []) },
      }),
    },
  });

  it.each([
    ['synced==true', ['in_sync']],
    ['synced==false', others],
    ['synced=in=(false,true,false)', [...others, 'in_sync']],
  ])('reads the keys that hold %s', (q, keys) => {
    expect(planIndex(parseFilter(q, fields))).toEqual({ index: 'status', keys, unique: false, field: 'synced' });
  });
});
