import { describe, expect, it } from 'vitest';
import { parseFilter, toPredicate } from '../../../src/query/index.js';
import { CTX, dev, devFields, type Dev } from './fixture.js';

const devices: Dev[] = [
  dev({ id: 1, name: 'Alpha', description: 'first box', updateStatus: 'in_sync', tags: ['prod', 'EU'], attributes: { hwRevision: '2', os: 'linux' }, lastPoll: CTX.now - 10, autoConfirm: true, weight: 10, ds: { name: 'os', version: '1.0' } }),
  dev({ id: 2, name: 'alphabet', description: '', updateStatus: 'pending', tags: ['dev'], attributes: { HWREVISION: '3' }, lastPoll: CTX.overdueTs - 1, weight: 5, ds: { name: 'os', version: '2.0' } }),
  dev({ id: 3, name: 'Beta*Star', description: null, updateStatus: 'error', tags: [], lastPoll: null, weight: null }),
  dev({ id: 4, name: 'gamma_%', description: 'Fourth', updateStatus: 'registered', tags: ['prod'], attributes: { hwRevision: '' }, lastPoll: CTX.overdueTs, autoConfirm: true, weight: 0, ds: { name: 'App', version: '1.0' } }),
  dev({ id: 5, name: 'a\\b', description: 'back\\slash', updateStatus: 'unknown', tags: ['EU'], weight: -2.5 }),
];

const ids = (q: string, ctx = CTX) => {
  const keep = toPredicate(parseFilter(q, devFields), ctx);
  return devices.filter(keep).map((d) => d.id);
};

describe('toPredicate: operators', () => {
  it.each([
    // == / != on strings: case-insensitive, != matches NULL
    ['name==alpha', [1]],
    ['name==ALPHABET', [2]],
    ['name!=alpha', [2, 3, 4, 5]],
    ['description==fourth', [4]],
    ['description!=fourth', [1, 2, 3, 5]],
    ['controllerid==DEV-3', [3]],
    ['id==dev-3', [3]],
    // numbers
    ['weight==10', [1]],
    ['weight==10.0', [1]],
    ['weight!=10', [2, 3, 4, 5]],
    ['weight=lt=5', [4, 5]],
    ['weight<5', [4, 5]],
    ['weight=le=5', [2, 4, 5]],
    ['weight=gt=0', [1, 2]],
    ['weight=ge=0', [1, 2, 4]],
    ['weight==-2.5', [5]],
    ['weight=in=(0,10)', [1, 4]],
    ['weight=out=(0,10)', [2, 3, 5]],
    // timestamps
    ['createdat=gt=1002', [3, 4, 5]],
    ['createdat=le=1002', [1, 2]],
    ['createdat==1004', [4]],
    // strings ordered (case-insensitive)
    ['name=lt=b', [1, 2, 5]],
    ['name=ge=beta', [3, 4]],
    // enums
    ['updatestatus==PENDING', [2]],
    ['updatestatus!=pending', [1, 3, 4, 5]],
    ['updatestatus=in=(error,registered)', [3, 4]],
    ['updatestatus=out=(error,registered)', [1, 2, 5]],
    // booleans
    ['autoconfirm==true', [1, 4]],
    ['autoconfirm==FALSE', [2, 3, 5]],
    ['autoconfirm!=true', [2, 3, 5]],
    // =in= / =out= on strings: literal, case-insensitive
    ['name=in=(ALPHA,beta*star,nope)', [1, 3]],
    ['name=in=(alp*)', []],
    ['name=out=(alpha,alphabet)', [3, 4, 5]],
    ['description=out=(fourth)', [1, 2, 3, 5]],
    // dotted sub-attributes and aliases
    ['assignedds.name==os', [1, 2]],
    ['assignedds==os;assignedds.version==2.0', [2]],
    ['assignedds.name!=os', [3, 4, 5]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('toPredicate: wildcards and escapes', () => {
  it.each([
    ['name==alpha*', [1, 2]],
    ['name==*BET', [2]],
    ['name==*ph*', [1, 2]],
    ['name==a*a', [1]],
    ['name==a*t', [2]],
    ['name==*', [1, 2, 3, 4, 5]],
    ['name==**', [1, 2, 3, 4, 5]],
    ['name!=alpha*', [3, 4, 5]],
    ['name!=*', []],
    ['description==*o*', [1, 4]],
    ['description!=*o*', [2, 3, 5]],
    // `\*` is a literal star, alone or inside a pattern
    ['name==beta\\*star', [3]],
    ['name==beta\\*', []],
    ['name==beta\\**', [3]],
    ['name==*\\*s*', [3]],
    // quoted values: the parser unescapes once, so a literal star needs \\*
    ["name=='beta\\\\*star'", [3]],
    ["name=='beta*'", [3]],
    // SQL and regex metacharacters are plain text
    ['name==gamma_%', [4]],
    ['name==gamma__', []],
    ['name==gamma%', []],
    ['name==*_%', [4]],
    ['name==.*', []],
    // a backslash not before a star is literal
    ["name=='a\\\\b'", [5]],
    ['name==a\\b', [5]],
    ['name==*\\b', [5]],
    ['description==*\\\\*', []],
    ['description==back\\slash', [5]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('toPredicate: empty string and NULL', () => {
  it.each([
    ["description==''", [2, 3]], // null or empty
    ["description!=''", [1, 4, 5]], // non-null, non-empty
    ['description=is=null', [3]],
    ['description=not=null', [1, 2, 4, 5]],
    ['description=is=Fourth', [4]],
    ['description=not=fourth', [1, 2, 3, 5]],
    ["weight==''", [3]],
    ["weight!=''", [1, 2, 4, 5]],
    ['weight=is=null', [3]],
    ['weight=not=null', [1, 2, 4, 5]],
    ['weight=lt=100', [1, 2, 4, 5]], // ordering never matches NULL
    ['lastcontrollerrequestat=is=null', [3, 5]],
    ['assignedds.name=is=null', [3, 5]],
    ["assignedds.name==''", [3, 5]],
    // multi-valued: NULL means no values
    ['tag=is=null', [3]],
    ['tag=not=null', [1, 2, 4, 5]],
    ["tag==''", [3]],
    ["tag!=''", [1, 2, 4, 5]],
    // map fields: a missing key is NULL
    ['attribute.os=is=null', [2, 3, 4, 5]],
    ["attribute.hwRevision==''", [3, 4, 5]],
    ["attribute.hwRevision!=''", [1, 2]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('toPredicate: multi-valued and map fields', () => {
  it.each([
    ['tag==prod', [1, 4]], // ANY value matches
    ['tag==eu', [1, 5]],
    ['tag.name==PROD', [1, 4]],
    ['tag!=prod', [2, 3, 5]], // NO value matches (entities without tags included)
    ['tag==p*', [1, 4]],
    ['tag!=*e*', [3, 4]],
    ['tag=in=(dev,eu)', [1, 2, 5]],
    ['tag=out=(dev,eu)', [3, 4]],
    ['tag==prod;tag==eu', [1]], // two different tags on one entity
    ['tag==prod,tag==dev', [1, 2, 4]],
    ['attribute.hwRevision==2', [1]],
    ['attribute.hwrevision==3', [2]], // keys compare case-insensitively
    ['attribute.hwRevision=in=(2,3)', [1, 2]],
    ['attribute.hwRevision!=2', [2, 3, 4, 5]], // missing key counts as NULL
    ['attribute.os==LIN*', [1]],
    ['attribute.hwRevision=gt=2', [2]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('toPredicate: logic', () => {
  it.each([
    ['name==alpha;weight==10', [1]],
    ['name==alpha;weight==5', []],
    ['name==alpha,weight==5', [1, 2]],
    // ; binds tighter than ,
    ['name==alpha,name==beta*;weight==0', [1]],
    ['name==beta*;weight=is=null,name==gamma*', [3, 4]],
    ['(name==alpha,name==gamma*);autoconfirm==true', [1, 4]],
    ['name==alpha,(name==gamma*;autoconfirm==false)', [1]],
    ['name==alpha or name==alphabet and weight==5', [1, 2]],
    ['(tag==prod,tag==dev);(updatestatus==pending,updatestatus==registered)', [2, 4]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('toPredicate: placeholders', () => {
  it.each([
    ['lastcontrollerrequestat=lt=${NOW_TS}', [1, 2, 4]],
    ['lastcontrollerrequestat=le=${OVERDUE_TS}', [2, 4]],
    ['lastcontrollerrequestat=lt=${OVERDUE_TS}', [2]],
    ['lastcontrollerrequestat=gt=${overdue_ts}', [1]],
    ['lastcontrollerrequestat==${OVERDUE_TS}', [4]],
    ['lastcontrollerrequestat=in=(${OVERDUE_TS},${NOW_TS})', [4]],
    // overdue or never polled: the overdue-target filter
    ['lastcontrollerrequestat=le=${OVERDUE_TS},lastcontrollerrequestat=is=null', [2, 3, 4, 5]],
  ])('%s -> %j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });

  it('reads the clock from the context each time a predicate is built', () => {
    const q = 'lastcontrollerrequestat=lt=${NOW_TS}';
    expect(ids(q, { now: 0, overdueTs: 0 })).toEqual([]);
    expect(ids(q, { now: Number.MAX_SAFE_INTEGER, overdueTs: 0 })).toEqual([1, 2, 4]);
  });
});

describe('toPredicate: values that do not fit the field', () => {
  it('treats a non-numeric value in a number field as no match', () => {
    const odd = dev({ id: 9, weight: 'heavy' as unknown as number });
    const keep = toPredicate(parseFilter('weight=gt=1', devFields), CTX);
    expect(keep(odd)).toBe(false);
    expect(toPredicate(parseFilter('weight!=1', devFields), CTX)(odd)).toBe(true);
  });

  it('reads numeric strings in number fields', () => {
    const odd = dev({ id: 9, weight: '7' as unknown as number });
    expect(toPredicate(parseFilter('weight=gt=5', devFields), CTX)(odd)).toBe(true);
    expect(toPredicate(parseFilter('weight=in=(7)', devFields), CTX)(odd)).toBe(true);
  });

  it('ignores null entries inside multi-valued fields', () => {
    const odd = dev({ id: 9, tags: [null as unknown as string] });
    expect(toPredicate(parseFilter('tag=is=null', devFields), CTX)(odd)).toBe(true);
  });
});
