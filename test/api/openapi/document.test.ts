/**
 * The OpenAPI document (issue 22): a valid OpenAPI 3.1 document by a maintained validator, served
 * without credentials at /rest/v1/openapi.json and, identical, at /v3/api-docs; every route the server
 * registers is in it and every operation in it is a registered route (only console static files may
 * be left out, and only by `doc: false`); request bodies are the schemas the handlers validate with.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../../../src/http/types.js';
import { startApp, type App } from '../../helpers/app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const openApiPath = (path: string): string => path.replace(/\/:([A-Za-z_][A-Za-z0-9_]*)/g, '/{$1}');
const key = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;

describe('OpenAPI document', () => {
  let app: App;
  let doc: Json;
  let routes: readonly Route[];
  const operations = (): { key: string; op: Json }[] =>
    Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: key(method, path), op })));
  const operation = (method: string, path: string): Json => doc.paths[path]?.[method.toLowerCase()];

  beforeAll(async () => {
    app = await startApp('memory');
    const res = await app.anon.get('/rest/v1/openapi.json');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.json();
    routes = app.server.server.routes;
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.description).toMatch(/default wire form/);
  });

  it('names the compat.managementApi switch where it changes the wire form', () => {
    expect(doc.info.description).toMatch(/compat\.managementApi: "1\.x"/);
    for (const [path, method] of [
      ['/rest/v1/actions', 'get'], ['/rest/v1/actions/{actionId}', 'get'], ['/rest/v1/targets/{targetId}/actions', 'get'],
      ['/rest/v1/targets/{targetId}/metadata', 'post'], ['/rest/v1/targets/{targetId}/metadata/{metadataKey}', 'put'],
      ['/rest/v1/system/configs', 'put'], ['/rest/v1/system/configs/{keyName}', 'put'],
    ] as const) expect(String(operation(method, path)?.description), `${method} ${path}`).toContain('compat.managementApi');
  });

  it('is served at /v3/api-docs too, the same bytes, without credentials', async () => {
    const a = await app.anon.get('/rest/v1/openapi.json');
    const b = await app.anon.get('/v3/api-docs');
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
  });

  it('has every registered route and nothing else; only console static files are left out, by doc: false', () => {
    const documented = new Set(operations().map((o) => o.key));
    const registered = new Set(routes.filter((r) => r.doc !== false).map((r) => key(r.method, openApiPath(r.path))));
    expect([...registered].filter((k) => !documented.has(k))).toEqual([]);
    expect([...documented].filter((k) => !registered.has(k))).toEqual([]);
    const excluded = routes.filter((r) => r.doc === false);
    // the rule: the console's static files (/ui, /ui/, /ui/<asset>), never its API or sign-in routes
    for (const r of excluded) expect(r.path, `${r.method} ${r.path} is left out`).toMatch(/^\/ui(\/|$)(?!api\/|oidc)/);
    expect(documented.size).toBe(routes.length - excluded.length);
    // the Management, DDI, platform and document routes are all there
    for (const k of [
      'GET /rest/v1/targets', 'POST /rest/v1/rollouts', 'GET /{tenant}/controller/v1/{controllerId}',
      'POST /rest/v1/softwaremodules/{softwareModuleId}/artifacts', 'GET /health', 'GET /metrics', 'GET /v3/api-docs', 'GET /rest/v1/docs',
    ]) expect(documented.has(k), k).toBe(true);
  });

  it('gives every operation a unique operationId, a tag and a summary', () => {
    const ops = operations();
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key: k, op } of ops) {
      expect(op.tags?.length, k).toBeGreaterThan(0);
      expect(op.summary, k).toMatch(/\S/);
    }
    expect(operation('GET', '/rest/v1/targets').tags).toEqual(['Targets']);
    expect(operation('GET', '/rest/v1/distributionsettags').tags).toEqual(['Distribution Set Tags']);
    expect(operation('GET', '/{tenant}/controller/v1/{controllerId}').tags).toEqual(['DDI Root Controller']);
    expect(operation('GET', '/health').tags).toEqual(['Platform']);
  });

  it('names the credentials each operation takes', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'peregrine_session' });
    expect(schemes.targetToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(schemes.gatewayToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(operation('GET', '/rest/v1/targets').security).toEqual([{ basicAuth: [] }, { bearerAuth: [] }, { sessionCookie: [] }]);
    expect(operation('GET', '/{tenant}/controller/v1/{controllerId}').security).toEqual([{ targetToken: [] }, { gatewayToken: [] }]);
    expect(operation('GET', '/health').security).toEqual([]);
    expect(operation('GET', '/rest/v1/openapi.json').security).toEqual([]);
  });

  it('names the permissions each Management operation needs', () => {
    expect(operation('GET', '/rest/v1/targets')['x-permissions']).toEqual({ allOf: ['READ_TARGET'] });
    expect(operation('GET', '/rest/v1/targets').description).toContain('Permission: READ_TARGET (or ALL).');
    expect(operation('GET', '/rest/v1/distributionsets/{distributionSetId}/assignedTargets')['x-permissions'])
      .toEqual({ allOf: ['READ_TARGET', 'READ_REPOSITORY'] });
    expect(operation('GET', '/rest/v1/softwaremodules')['x-permissions']).toEqual({ anyOf: ['READ_REPOSITORY', 'READ_SOFTWARE_MODULE'] });
    expect(operation('GET', '/rest/v1/userinfo')['x-permissions']).toEqual({});
    expect(operation('GET', '/{tenant}/controller/v1/{controllerId}')['x-permissions']).toBeUndefined();
  });

  it('declares the path parameters of every path, and the list parameters of paged lists', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(item)) {
        const inPath = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(inPath, path).toEqual(names);
      }
    }
    const query = (method: string, path: string) =>
      (operation(method, path).parameters as Json[]).filter((p) => p.in === 'query').map((p) => p.name);
    expect(query('GET', '/rest/v1/targets')).toEqual(['offset', 'limit', 'sort', 'q']);
    expect(query('GET', '/rest/v1/rollouts')).toEqual(['offset', 'limit', 'sort', 'q', 'representation', 'soft_deleted_mode']);
    expect(query('GET', '/rest/v1/targets/{targetId}/actions/{actionId}/status')).toEqual(['offset', 'limit', 'sort', 'q']);
    expect(query('POST', '/rest/v1/targets/{targetId}/assignedDS')).toEqual(['offline']);
  });

  it('shows the request bodies the handlers validate, in the form a client writes them', () => {
    const body = (method: string, path: string, type = 'application/json'): Json => {
      const schema = operation(method, path).requestBody?.content?.[type]?.schema;
      return schema?.$ref === undefined ? schema : doc.components.schemas[schema.$ref.split('/').pop()];
    };
    // many(createTargetItem): an array of targets; controllerId required; coercions show their target type
    const targets = body('POST', '/rest/v1/targets');
    expect(targets.type).toBe('array');
    expect(targets.items.required).toContain('controllerId');
    expect(targets.items.properties.name.anyOf?.[0] ?? targets.items.properties.name).toMatchObject({ type: 'string', maxLength: 128 });
    const rollout = body('POST', '/rest/v1/rollouts');
    expect(rollout.required).toEqual(['name']);
    expect(JSON.stringify(rollout.properties.distributionSetId)).toContain('"integer"');
    expect(JSON.stringify(rollout.properties.amountGroups)).toContain('"integer"');
    // DDI: JSON and CBOR
    const feedback = body('POST', '/{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}/feedback');
    expect(feedback.properties.status.properties.execution.enum).toContain('closed');
    expect(body('POST', '/{tenant}/controller/v1/{controllerId}/deploymentBase/{actionId}/feedback', 'application/cbor')).toEqual(feedback);
    // optional bodies say so; uploads are multipart with the binary in `file`
    expect(operation('POST', '/rest/v1/targets/{targetId}/autoConfirm/activate').requestBody.required).toBe(false);
    const upload = body('POST', '/rest/v1/softwaremodules/{softwareModuleId}/artifacts', 'multipart/form-data');
    expect(upload.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(operation('GET', '/rest/v1/targets').requestBody).toBeUndefined();
  });

  it('answers errors with the error body', () => {
    expect(doc.components.schemas.ExceptionInfo.required).toEqual(['exceptionClass', 'errorCode', 'message']);
    const responses = operation('GET', '/rest/v1/targets/{targetId}').responses;
    for (const status of ['400', '401', '403', '404', 'default']) expect(responses[status], status).toBeDefined();
    expect(doc.components.responses.NotFound.content['application/hal+json'].schema).toEqual({ $ref: '#/components/schemas/ExceptionInfo' });
  });
});
