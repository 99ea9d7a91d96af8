import { describe, expect, it } from 'vitest';
import { isJsonContentType, negotiateJson } from '../../../src/http/negotiate.js';

describe('content negotiation', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['application/hal+json', 'hal'],
    ['application/hal+json, application/json', 'hal'],
    ['application/json, application/hal+json', 'json'],
    ['application/json;q=0.5, application/hal+json', 'hal'],
    ['application/hal+json;q=0.5, application/json', 'json'],
    ['text/html, */*;q=0.1', 'json'],
    ['text/html', 'unacceptable'],
    ['application/xml, text/plain', 'unacceptable'],
    ['application/json;q=0', 'unacceptable'],
    ['*/*;q=0', 'unacceptable'],
    ['APPLICATION/JSON', 'json'],
  ])('Accept %j -> %s', (accept, flavour) => {
    expect(negotiateJson(accept)).toBe(flavour);
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
});
