/**
 * openApiDocument on routes made for the test: what each part of a route declaration becomes in the
 * document (paths, parameters, tags, bodies in their input form, replies, security, exclusions).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../src/apidoc/document.js';
import type { Route } from '../../../src/http/types.js';
import { idRefs, int, name } from '../../../src/mgmt/kit/body.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const handler: Route['handler'] = () => ({ status: 204 });
const auth: Route['auth'] = () => ({ kind: 'mgmt', tenant: 'T', username: 'u', permissions: new Set() });
const thing = z.looseObject({ id: z.number().int(), name: z.string().optional() }).meta({ id: 'TestThing' });
const body = z.object({ name, count: int(1, 10).nullish() });

const ROUTES: Route[] = [
  { method: 'GET', path: '/rest/v1/things', auth, handler, doc: { list: 'full', response: z.object({ content: z.array(thing) }) } },
  { method: 'POST', path: '/rest/v1/things', auth, handler, doc: { body: idRefs, response: { status: 201, schema: z.array(thing) } } },
  { method: 'PUT', path: '/rest/v1/things/:thingId', auth, handler, doc: { body, bodyOptional: true, response: thing, tags: ['Custom'] } },
  { method: 'DELETE', path: '/rest/v1/things/:thingId', auth, handler, doc: { response: { status: 204 } } },
  { method: 'POST', path: '/rest/v1/things/:thingId/file', auth, handler, body: 'stream' },
  { method: 'GET', path: '/:tenant/controller/v1/:controllerId', auth, handler, cbor: true, doc: { response: thing } },
  { method: 'GET', path: '/x/a-b', handler },
  { method: 'GET', path: '/x/aB', handler },
  { method: 'GET', path: '/ui/app.js', handler, doc: false },
];

describe('openApiDocument', () => {
  const doc: Json = openApiDocument(ROUTES, { title: 'test', version: '1' });
  const op = (method: string, path: string): Json => doc.paths[path][method];

  it('is valid, pure, and leaves out exactly the routes marked doc: false', async () => {
    expect((await new Validator().validate(structuredClone(doc))).valid).toBe(true);
    expect(openApiDocument(ROUTES, { title: 'test', version: '1' })).toEqual(doc);
    expect(Object.keys(doc.paths)).toEqual([
      '/rest/v1/things', '/rest/v1/things/{thingId}', '/rest/v1/things/{thingId}/file', '/{tenant}/controller/v1/{controllerId}', '/x/a-b', '/x/aB',
    ]);
    expect(doc.components.schemas.TestThing).toMatchObject({ type: 'object', required: ['id'] });
  });

  it('derives ids, tags and parameters from the path', () => {
    expect(op('get', '/x/a-b').operationId).not.toBe(op('get', '/x/aB').operationId);
    expect(op('get', '/rest/v1/things').tags).toEqual(['Things']);
    expect(op('put', '/rest/v1/things/{thingId}').tags).toEqual(['Custom']);
    expect(op('get', '/{tenant}/controller/v1/{controllerId}').tags).toEqual(['DDI Root Controller']);
    expect(op('get', '/rest/v1/things').parameters.map((p: Json) => p.name)).toEqual(['offset', 'limit', 'sort', 'q', 'representation']);
    expect(op('delete', '/rest/v1/things/{thingId}').parameters).toEqual([{ name: 'thingId', in: 'path', required: true, schema: { type: 'integer' } }]);
    expect(op('get', '/{tenant}/controller/v1/{controllerId}').parameters.map((p: Json) => p.schema.type)).toEqual(['string', 'string']);
  });

  it('shows bodies as clients write them: coercions as their target type, lists as arrays, uploads as multipart', () => {
    const put = op('put', '/rest/v1/things/{thingId}').requestBody;
    expect(put.required).toBe(false);
    const schema = put.content['application/json'].schema;
    expect(schema.properties.name).toEqual({ type: 'string', minLength: 1, maxLength: 128 });
    expect(schema.properties.count).toEqual({ anyOf: [{ type: 'integer', minimum: 1, maximum: 10 }, { type: 'null' }] });
    expect(schema.required).toEqual(['name']);
    expect(op('post', '/rest/v1/things').requestBody.content['application/json'].schema).toMatchObject({ type: 'array', items: { required: ['id'] } });
    expect(Object.keys(op('post', '/rest/v1/things/{thingId}/file').requestBody.content)).toEqual(['multipart/form-data']);
    expect(op('get', '/rest/v1/things').requestBody).toBeUndefined();
  });

  it('declares the success reply, the error replies and the credentials', () => {
    expect(Object.keys(op('post', '/rest/v1/things').responses)).toEqual(['201', '400', '401', '403', '409', 'default']);
    expect(op('post', '/rest/v1/things').responses['201'].content['application/hal+json'].schema).toEqual({
      type: 'array', items: { $ref: '#/components/schemas/TestThing' },
    });
    expect(op('put', '/rest/v1/things/{thingId}').responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TestThing' });
    expect(op('delete', '/rest/v1/things/{thingId}').responses['204']).toEqual({ description: 'No content' });
    expect(op('delete', '/rest/v1/things/{thingId}').responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(op('post', '/rest/v1/things/{thingId}/file').responses['2XX']).toEqual({ description: 'Success' });
    expect(Object.keys(op('get', '/{tenant}/controller/v1/{controllerId}').responses['200'].content))
      .toEqual(['application/hal+json', 'application/json', 'application/cbor']);
    expect(op('get', '/{tenant}/controller/v1/{controllerId}').security).toEqual([{ targetToken: [] }, { gatewayToken: [] }]);
    expect(op('get', '/rest/v1/things').security).toEqual([{ basicAuth: [] }, { bearerAuth: [] }, { sessionCookie: [] }]);
    expect(op('get', '/x/aB').security).toEqual([]);
    expect(Object.keys(op('get', '/x/aB').responses).sort()).toEqual(['2XX', '400', 'default']);
  });
});
