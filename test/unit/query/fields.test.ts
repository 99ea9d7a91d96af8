import { describe, expect, it } from 'vitest';
import { defineFields, mapValue, oneOf, resolveField, text } from '../../../src/query/index.js';
import { devFields } from './fixture.js';

interface Thing {
  readonly id: number;
  readonly name: string;
}

describe('defineFields', () => {
  it('names fields, aliases and prefixes', () => {
    expect(devFields.fields.get('tag')?.name).toBe('tag.name');
    expect(devFields.fields.get('tag')).toBe(devFields.fields.get('tag.name'));
    expect(devFields.prefixes.get('attribute')).toMatchObject({ name: 'attribute', prefix: true, sortable: false });
    expect(devFields.names).toContain('attribute.<key>');
    expect(devFields.names).toContain('createdat');
    expect(devFields.names).toContain('lastmodifiedby');
  });

  it.each([
    [{ fields: { Name: text<Thing>((t) => t.name) } }, "field name 'Name' must be lower-case"],
    [{ fields: { 'a..b': text<Thing>((t) => t.name) } }, "field name 'a..b' must be lower-case"],
    [{ fields: { name: text<Thing>((t) => t.name) }, aliases: { name: 'name' } }, "field 'name' declared twice"],
    [{ fields: { name: text<Thing>((t) => t.name) }, aliases: { label: 'title' } }, "alias 'label' points to unknown field 'title'"],
    [{ fields: { name: text<Thing>((t) => t.name) }, prefixes: { name: text<Thing>((t) => t.name) } }, "field 'name' declared twice"],
    [{ fields: { state: oneOf<Thing>([], (t) => t.name) } }, "enum field 'state' needs enumValues"],
  ])('refuses a bad declaration (%#)', (def, message) => {
    expect(() => defineFields<Thing, never>({ resource: 'thing', id: (t) => t.id, ...def })).toThrow(message);
  });
});

describe('resolveField', () => {
  it.each([
    ['name', 'name', undefined],
    ['NaMe', 'name', undefined],
    ['TAG', 'tag.name', undefined],
    ['attribute.hwRevision', 'attribute', 'hwRevision'],
    ['Attribute.a.b', 'attribute', 'a.b'],
  ])('%s -> %s', (selector, name, key) => {
    const r = resolveField(devFields, selector);
    expect(r?.spec.name).toBe(name);
    expect(r?.key).toBe(key);
  });

  it.each(['nosuch', 'attribute', 'attribute.', '.attribute', 'name.x', 'constructor', '__proto__', 'toString'])(
    '%s -> undefined',
    (selector) => {
      expect(resolveField(devFields, selector)).toBeUndefined();
    },
  );
});

describe('mapValue', () => {
  const map = { hwRevision: '2', OS: 'linux' };
  it.each([
    ['hwRevision', '2'],
    ['hwrevision', '2'],
    ['os', 'linux'],
    ['none', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
  ])('%s -> %s', (key, expected) => {
    expect(mapValue(map, key)).toBe(expected);
  });

  it('handles missing maps and keys', () => {
    expect(mapValue(undefined, 'a')).toBeUndefined();
    expect(mapValue(map, undefined)).toBeUndefined();
  });
});
