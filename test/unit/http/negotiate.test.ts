import { describe, expect, it } from 'vitest';
import { isCborContentType, isJsonContentType, negotiate } from '../../../src/http/negotiate.js';

describe('content negotiation', () => {
  it.each([
    [undefined, 'hal'],
    ['', 'hal'],
    ['*/*', 'hal'],
    ['application/*', 'hal'],
    ['application/json', 'json'],
    ['application/hal+json', 'hal'],
    ['application/hal+json, application/json', 'hal'],
    ['application/json, application/hal+json', 'json'],
    ['application/json;q=0.5, application/hal+json', 'hal'],
    ['application/hal+json;q=0.5, application/json', 'json'],
    ['text/html, */*;q=0.1', 'hal'],
    ['application/json, */*', 'json'],
    ['application/json;q=0, */*', 'hal'],
    ['text/html', 'unacceptable'],
    ['application/xml, text/plain', 'unacceptable'],
    ['application/json;q=0', 'unacceptable'],
    ['*/*;q=0', 'unacceptable'],
    ['APPLICATION/JSON', 'json'],
  ])('Accept %j -> %s', (accept, flavour) => {
    expect(negotiate(accept)).toBe(flavour);
  });

  it.each([
    [undefined, 'hal'],
    ['*/*', 'hal'],
    ['application/cbor', 'cbor'],
    ['application/cbor, application/json', 'cbor'],
    ['application/json, application/cbor', 'json'],
    ['application/json;q=0.5, application/cbor', 'cbor'],
    ['application/*, application/cbor;q=0.9', 'hal'],
    ['text/html', 'unacceptable'],
  ])('on a route that speaks CBOR, Accept %j -> %s', (accept, flavour) => {
    expect(negotiate(accept, true)).toBe(flavour);
  });

  it('offers CBOR only where the route speaks it', () => {
    expect(negotiate('application/cbor')).toBe('unacceptable');
    expect(negotiate('application/cbor, */*;q=0.1')).toBe('hal');
  });

  it.each([
    ['application/json', true],
    ['application/json; charset=UTF-8', true],
    ['Application/JSON', true],
    ['application/hal+json', true],
    ['application/vnd.foo+json', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['application/jsonx', false],
    ['multipart/form-data; boundary=x', false],
    ['', false],
  ])('Content-Type %j is JSON: %s', (type, json) => {
    expect(isJsonContentType(type)).toBe(json);
  });

  it.each([
    ['application/cbor', true],
    ['Application/CBOR; charset=binary', true],
    ['application/json', false],
    ['application/cbor-seq', false],
  ])('Content-Type %j is CBOR: %s', (type, cbor) => {
    expect(isCborContentType(type)).toBe(cbor);
  });
});
