import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { MAX_DEPTH, parseFilter, type Filter } from '../../../src/query/index.js';
import { appErrorOf as errorOf } from '../../helpers/app-error.js';
import { devFields, type Dev } from './fixture.js';

/** A compact text form of a filter: (a & b), (a | b), name op [values]. */
function show(f: Filter<Dev>): string {
  if (f.kind === 'cmp') {
    const name = f.key === undefined ? f.field.name : `${f.field.name}.${f.key}`;
    return `${name}${f.op}${JSON.stringify(f.values)}`;
  }
  return `(${f.children.map(show).join(f.kind === 'and' ? ' & ' : ' | ')})`;
}
const p = (q: string) => show(parseFilter(q, devFields));

describe('parseFilter: structure', () => {
  it.each([
    ['name==a', 'name==["a"]'],
    ['NAME==a', 'name==["a"]'],
    ['name!=a', 'name!=["a"]'],
    ['weight=lt=3', 'weight=lt=[3]'],
    ['weight<3', 'weight=lt=[3]'],
    ['weight=le=3', 'weight=le=[3]'],
    ['weight<=3', 'weight=le=[3]'],
    ['weight=gt=3', 'weight=gt=[3]'],
    ['weight>3', 'weight=gt=[3]'],
    ['weight=ge=3.5', 'weight=ge=[3.5]'],
    ['weight>=-3', 'weight=ge=[-3]'],
    ['name=in=(a,b,"c d")', 'name=in=["a","b","c d"]'],
    ['name=in=a', 'name=in=["a"]'],
    ['name=out=(a,b)', 'name=out=["a","b"]'],
    ['description=is=null', 'description==[null]'],
    ['description=is=NULL', 'description==[null]'],
    ['description=not=null', 'description!=[null]'],
    ['description=is=x', 'description==["x"]'],
    ['name==null', 'name==["null"]'],
    ["name==''", 'name==[""]'],
    ['name!=""', 'name!=[""]'],
    ['tag==prod', 'tag.name==["prod"]'],
    ['tag.name==prod', 'tag.name==["prod"]'],
    ['assignedDS==os', 'assignedds.name==["os"]'],
    ['assignedds.version==1.0', 'assignedds.version==["1.0"]'],
    ['attribute.hwRevision==2', 'attribute.hwRevision==["2"]'],
    ['ATTRIBUTE.a.b==2', 'attribute.a.b==["2"]'],
    ['updatestatus==IN_SYNC', 'updatestatus==["in_sync"]'],
    ['updatestatus=in=(Pending,error)', 'updatestatus=in=["pending","error"]'],
    ['autoconfirm==TRUE', 'autoconfirm==[true]'],
    ['autoconfirm!=false', 'autoconfirm!=[false]'],
    ['createdat=gt=1700000000000', 'createdat=gt=[1700000000000]'],
    ['lastcontrollerrequestat=le=${OVERDUE_TS}', 'lastcontrollerrequestat=le=[{"placeholder":"OVERDUE_TS"}]'],
    ['lastcontrollerrequestat=lt=${now_ts}', 'lastcontrollerrequestat=lt=[{"placeholder":"NOW_TS"}]'],
    ["name=='a\\\\*b'", 'name==["a\\\\*b"]'],
    ['name==a\\*b', 'name==["a\\\\*b"]'],
  ])('%s', (q, expected) => {
    expect(p(q)).toBe(expected);
  });

  it.each([
    ['a: ; binds tighter than ,', 'name==a;name==b,name==c', '((name==["a"] & name==["b"]) | name==["c"])'],
    ['b: , then ;', 'name==a,name==b;name==c', '(name==["a"] | (name==["b"] & name==["c"]))'],
    ['parentheses override', '(name==a,name==b);name==c', '((name==["a"] | name==["b"]) & name==["c"])'],
    ['verbose and/or', 'name==a and name==b or name==c', '((name==["a"] & name==["b"]) | name==["c"])'],
    ['chains flatten', 'name==a;name==b;name==c;name==d', '(name==["a"] & name==["b"] & name==["c"] & name==["d"])'],
    ['nested same op flattens', 'name==a;(name==b;name==c)', '(name==["a"] & name==["b"] & name==["c"])'],
    ['whitespace', ' name == a ; ( name == b , name == c ) ', '(name==["a"] & (name==["b"] | name==["c"]))'],
  ])('precedence %s', (_label, q, expected) => {
    expect(p(q)).toBe(expected);
  });
});

describe('parseFilter: errors', () => {
  it('names the unknown field and lists the valid ones', () => {
    const err = errorOf(() => parseFilter('nosuch==1', devFields));
    expect(err.code).toBe('RSQL_FIELD');
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      'The given search parameter field {nosuch} does not exist, must be one of the following fields ' +
        `[${devFields.names.join(', ')}]`,
    );
    expect(err.message).toContain('attribute.<key>');
    expect(err.message).toContain('updatestatus');
  });

  it.each(['nosuch==1', 'attribute==1', 'attribute.==1', 'assignedds.foo==1', 'tag.colour==red', 'name.x==1', '.name==1'])(
    'unknown field %s -> RSQL_FIELD',
    (q) => {
      expect(errorOf(() => parseFilter(q, devFields)).code).toBe('RSQL_FIELD');
    },
  );

  it.each([
    ['', 'Cannot parse empty string'],
    ['name', 'Unexpected end'],
    ['name==', 'Unexpected end'],
    ['==a', "Unexpected string '==' at position 1"],
    ['name==a;', 'Unexpected end'],
    ['name==a;;name==b', "Unexpected character ';' at position 9"],
    ['(name==a', 'Did you forget to close parenthesis at position 1?'],
    ['name==a)', "Unexpected character ')' at position 8"],
    ["name=='a", "Unclosed quote ''' at position 7"],
    ['name=in=()', "Unexpected character ')' at position 10"],
    ['name~=a', "Unexpected character '~'"],
    ['name=IN=(a)', "Unexpected character '='"],
  ])('syntax error %j names the position', (q, fragment) => {
    const err = errorOf(() => parseFilter(q, devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^q is not well formed: /);
    expect(err.message).toContain(fragment);
  });

  it.each([
    ['name=li=a', 'operator {=li=} is not supported'],
    ['name=foo=a', 'operator {=foo=} is not supported'],
    ['name==(a,b)', 'operator == on field {name} takes one value, got a list'],
    ['weight=gt=(1,2)', 'operator =gt= on field {weight} takes one value, got a list'],
    ['updatestatus==bogus', 'value {bogus} is not valid for field {updatestatus}: expected one of [unknown, in_sync, pending, error, registered]'],
    ['updatestatus=in=(pending,nope)', 'value {nope} is not valid for field {updatestatus}'],
    ['updatestatus==pend*', 'value {pend*} is not valid for field {updatestatus}'],
    ['createdat=gt=abc', 'value {abc} is not valid for field {createdat}: expected epoch milliseconds, ${NOW_TS} or ${OVERDUE_TS}'],
    ['createdat=gt=1.5', 'value {1.5} is not valid for field {createdat}'],
    ['createdat=gt=${TODAY}', 'value {${TODAY}} is not valid for field {createdat}'],
    ['createdat=gt=99999999999999999', 'value {99999999999999999} is not valid for field {createdat}'],
    ["createdat=gt=''", 'value {} is not valid for field {createdat}'],
    ['weight==abc', 'value {abc} is not valid for field {weight}: expected a number'],
    ['weight==1e5', 'value {1e5} is not valid for field {weight}'],
    ['weight==Infinity', 'value {Infinity} is not valid for field {weight}'],
    ['weight=in=(1,x)', 'value {x} is not valid for field {weight}'],
    ['autoconfirm==yes', 'value {yes} is not valid for field {autoconfirm}: expected true or false'],
    ['autoconfirm=gt=true', 'operator =gt= is not supported for boolean field {autoconfirm}'],
    ['updatestatus=lt=pending', 'operator =lt= is not supported for enum field {updatestatus}'],
  ])('bad value or operator %s -> RSQL_SYNTAX', (q, message) => {
    const err = errorOf(() => parseFilter(q, devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.status).toBe(400);
    expect(err.message).toContain(message);
  });

  it('shortens a huge unknown field name in the message', () => {
    const err = errorOf(() => parseFilter(`${'x'.repeat(3000)}==1`, devFields));
    expect(err.code).toBe('RSQL_FIELD');
    expect(err.message).toContain(`{${'x'.repeat(64)}...}`);
    expect(err.message.length).toBeLessThan(1000);
  });

  it('does not echo the whole query in syntax errors', () => {
    const q = `name==a;${'x'.repeat(3000)}`;
    const err = errorOf(() => parseFilter(q, devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.message.length).toBeLessThan(200);
  });
});

describe('parseFilter: limits and hostile input', () => {
  // hostile input must be answered, not hang: the test's timeout catches a hang (no time is asserted)
  it('refuses q longer than 4096 characters', () => {
    const err = errorOf(() => parseFilter(`name==${'a'.repeat(4091)}`, devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.message).toBe('q must be at most 4096 characters, got 4097');
    expect(() => parseFilter(`name==${'a'.repeat(4090)}`, devFields)).not.toThrow();
  });

  it(`accepts ${MAX_DEPTH} levels of parentheses and refuses more`, () => {
    const nest = (n: number) => `${'('.repeat(n)}name==a${')'.repeat(n)}`;
    expect(p(nest(MAX_DEPTH))).toBe('name==["a"]');
    const err = errorOf(() => parseFilter(nest(MAX_DEPTH + 1), devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.message).toBe('q nests parentheses deeper than 32 levels');
    expect(errorOf(() => parseFilter(nest(2000), devFields)).code).toBe('RSQL_SYNTAX');
  });

  it('does not count parentheses inside quoted values', () => {
    expect(p(`name=='${'('.repeat(100)}'`)).toBe(`name==["${'('.repeat(100)}"]`);
  });

  it('refuses and/or nested deeper than the cap even when parentheses are within it', () => {
    // alternating a,(a;(a,(...))) adds one level per parenthesis: 31 parentheses, 32 levels is fine
    const alt = (n: number): string => (n === 0 ? 'name==a' : `name==a${n % 2 ? ',' : ';'}(${alt(n - 1)})`);
    expect(() => parseFilter(alt(31), devFields)).not.toThrow();
    expect(errorOf(() => parseFilter(alt(32), devFields)).message).toMatch(/deeper than 32 levels/);
  });

  it('handles a maximal flat chain without deep recursion', () => {
    const q = Array.from({ length: 682 }, () => 'id==a').join(';'); // 4091 characters
    const f = parseFilter(q, devFields);
    expect(f.kind === 'and' && f.children.length).toBe(682);
  });

  it('caps =in= lists at 1000 values', () => {
    const list = (n: number) => `weight=in=(${Array.from({ length: n }, (_, i) => i % 10).join(',')})`;
    expect(() => parseFilter(list(1000), devFields)).not.toThrow();
    const err = errorOf(() => parseFilter(list(1001), devFields));
    expect(err.code).toBe('RSQL_SYNTAX');
    expect(err.message).toBe('operator =in= on field {weight} takes at most 1000 values, got 1001');
  });

  it.each([
    "name==*'; DROP TABLE sp_target; --",
    'name==a;DROP TABLE x',
    "name==a' OR '1'='1",
    'name==a)) OR ((1==1',
    'name==$(rm -rf /)',
    '<script>alert(1)</script>',
    'name==a\u0000b;',
    '\\',
    '"',
    "'",
    '=',
    'name=====a',
    'name!!=a',
    'name==a,,,',
    '()',
    ')(',
  ])('answers %j with a clean 400', (q) => {
    const err = errorOf(() => parseFilter(q, devFields));
    expect(err.status).toBe(400);
    expect(['RSQL_SYNTAX', 'RSQL_FIELD']).toContain(err.code);
  });

  it.each([
    ['name==*%_[.*+?^${}|]*', 'name==["*%_[.*+?^${}|]*"]'],
    ['name==\'; DROP TABLE x; --\'', 'name==["; DROP TABLE x; --"]'],
    ['name==💥', 'name==["💥"]'],
  ])('keeps odd but valid values as plain text: %s', (q, expected) => {
    expect(p(q)).toBe(expected);
  });

  it.each([
    ['many quotes', `name==${"'\\''".repeat(800)}`],
    ['many backslashes', `name=='${'\\'.repeat(4000)}'`],
    ['many stars', `name==${'*a'.repeat(2040)}`],
    ['many parentheses', `${'('.repeat(2048)}${')'.repeat(2048)}`],
    ['many commas', `name=in=(${','.repeat(4000)})`],
    ['many operators', '=='.repeat(2048)],
  ])('parses or refuses hostile %s', (_label, q) => {
    try {
      parseFilter(q.slice(0, 4096), devFields);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
    }
  });
});
