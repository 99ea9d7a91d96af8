/**
 * The OpenAPI 3.1 document of every route the server registers, generated from the route
 * declarations: method and path (`:name` -> `{name}`), authentication (a route with `auth` needs the
 * Management or DDI credentials, by its path), and what `route.doc` adds (request body schema, list
 * parameters, reply schema, tags, summary), with the worked examples recorded from a real server
 * (examples.ts). Routes marked `doc: false` are left out on purpose.
 * Pure: the same routes give the same document.
 */
import type { PermissionRequirement } from '../http/auth-basic.js';
import { requirementOf } from '../http/auth-doc.js';
import type { QueryDoc, ResponseDoc, Route, RouteDoc } from '../http/types.js';
import { attachExamples } from './examples.js';
import { API_EXAMPLES } from './examples.generated.js';
import { SchemaConverter, type JsonSchema } from './json-schema.js';
import { operationId, openApiPath, pathParams, summaryOf, tagOf } from './naming.js';
import { errorSchema } from './shapes.js';

export interface ApiInfo {
  readonly title: string;
  readonly version: string;
}

export type OpenApiDocument = Record<string, unknown> & { readonly paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/ExceptionInfo' };
const DDI_PATH = /^\/:tenant\/controller\/v1\//;

const DESCRIPTION = [
  'The Management API (`/rest/v1`) and the Direct Device Integration API (`/{tenant}/controller/v1`) of peregrine, a',
  'hawkBit-compatible rollout server, with its platform routes. Generated from the routes the server registers and the',
  'schemas its handlers validate request bodies with. It describes the default wire form, the spec\'s (hawkBit 0.9\'s',
  'where hawkBit 1.0 changed it, but for metadata writes: hawkBit 0.9 answered them without a body already).',
  '`compat.managementApi: "1.x"` (config.yaml, or the key of that name in a tenant\'s',
  'configuration) switches to hawkBit 1.x\'s where they differ: action `status` (the operations that answer actions say',
  'how), metadata and configuration writes without a body (their operations say so), and every quota violation',
  '(`hawkbit.server.error.quota.*`) answered 429 instead of 403. Request bodies are shown in their canonical form; like hawkBit, the',
  'server also accepts numbers and booleans written as strings and a single object where a list is expected.',
  'Replies leave null fields out (hawkBit\'s NON_NULL) unless a schema says a field may be null; objects may carry',
  'fields the schema does not name.',
].join(' ');

const LIST_PARAMS: readonly QueryDoc[] = [
  { name: 'offset', type: 'integer', description: 'index of the first item (default 0)' },
  { name: 'limit', type: 'integer', description: 'items per page (default and maximum: the server\'s page limits)' },
  { name: 'sort', description: 'field:ASC|DESC, comma-separated (e.g. `name:ASC,id:DESC`)' },
  { name: 'q', description: 'FIQL/RSQL filter over the resource\'s fields (e.g. `name==web*`)' },
];
const REPRESENTATION: QueryDoc = { name: 'representation', values: ['compact', 'full'], description: 'full renders every item as its single GET does' };

/** The document for these routes (the server passes all it registers). */
export function openApiDocument(routes: readonly Route[], info: ApiInfo): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const input = new SchemaConverter('input', schemas);
  const output = new SchemaConverter('output', schemas);
  output.convert(errorSchema); // registers ExceptionInfo, which every error reply names
  const paths: Record<string, Record<string, Operation>> = {};
  const ids = new Set<string>();
  const tags = new Set<string>();
  for (const route of routes) {
    if (route.doc === false) continue;
    const doc: RouteDoc = route.doc ?? {};
    const path = openApiPath(route.path);
    const op = operation(route, doc, input, output);
    op['operationId'] = unique(ids, operationId(route.method, route.path));
    for (const t of op['tags'] as string[]) tags.add(t);
    (paths[path] ??= {})[route.method.toLowerCase()] = op;
  }
  attachExamples(paths, API_EXAMPLES);
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: DESCRIPTION },
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses: errorResponses(),
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'Management API: a user of the tenant (config.yaml)' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Management API: an OpenID Connect access token, where configured' },
        sessionCookie: {
          type: 'apiKey', in: 'cookie', name: 'peregrine_session',
          description: 'Management API: the console\'s session (POST /ui/api/login); every request but GET and HEAD also sends X-CSRF-Token with the session\'s csrf value',
        },
        targetToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'DDI: `TargetToken <the target\'s security token>`' },
        gatewayToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'DDI: `GatewayToken <the tenant\'s gateway token>`' },
      },
    },
  };
}

function unique(ids: Set<string>, id: string): string {
  let out = id;
  for (let n = 2; ids.has(out); n++) out = `${id}_${n}`;
  ids.add(out);
  return out;
}

function operation(route: Route, doc: RouteDoc, input: SchemaConverter, output: SchemaConverter): Operation {
  const ddi = DDI_PATH.test(route.path);
  const op: Operation = {
    tags: doc.tags ?? [tagOf(route.path)],
    summary: doc.summary ?? summaryOf(route.method, route.path),
  };
  const permission = route.auth === undefined ? undefined : requirementOf(route.auth);
  const description = [doc.description, permission === undefined ? undefined : permissionText(permission)].filter((t) => t !== undefined);
  if (description.length > 0) op['description'] = description.join('\n\n');
  if (permission !== undefined) op['x-permissions'] = permissionList(permission);
  const parameters = [
    ...pathParams(route.path).map((p) => ({ name: p.name, in: 'path', required: true, schema: { type: p.type } })),
    ...[...(doc.list === undefined ? [] : LIST_PARAMS), ...(doc.list === 'full' ? [REPRESENTATION] : []), ...(doc.query ?? [])].map(queryParam),
  ];
  if (parameters.length > 0) op['parameters'] = parameters;
  const body = requestBody(route, doc, input);
  if (body !== undefined) op['requestBody'] = body;
  op['responses'] = responses(route, doc, output, ddi);
  if (route.auth === undefined) op['security'] = [];
  else op['security'] = ddi ? [{ targetToken: [] }, { gatewayToken: [] }] : [{ basicAuth: [] }, { bearerAuth: [] }, { sessionCookie: [] }];
  return op;
}

/** The permissions a Management operation needs, as a sentence. */
function permissionText(p: PermissionRequirement | null): string {
  if (p === null) return 'Any signed-in user.';
  if (typeof p === 'string') return `Permission: ${p} (or ALL).`;
  if ('anyOf' in p) return `Permission: one of ${p.anyOf.join(', ')} (or ALL).`;
  return `Permissions: ${p.join(' and ')} (or ALL).`;
}

/** The same as `x-permissions`: `{ allOf }` or `{ anyOf }` of permission names (`{}`: any signed-in user). */
function permissionList(p: PermissionRequirement | null): object {
  if (p === null) return {};
  if (typeof p === 'string') return { allOf: [p] };
  return 'anyOf' in p ? { anyOf: [...p.anyOf] } : { allOf: [...p] };
}

function queryParam(q: QueryDoc): object {
  const schema = q.values === undefined ? { type: q.type ?? 'string' } : { type: 'string', enum: [...q.values] };
  return { name: q.name, in: 'query', required: false, schema, ...(q.description === undefined ? {} : { description: q.description }) };
}

function requestBody(route: Route, doc: RouteDoc, input: SchemaConverter): object | undefined {
  if (route.body === 'stream') {
    const schema = doc.body === undefined ? { type: 'object' } : input.convert(doc.body);
    return { required: true, content: { 'multipart/form-data': { schema } } };
  }
  if (doc.body === undefined) return undefined;
  const schema = input.convert(doc.body);
  const content: Record<string, object> = { 'application/json': { schema } };
  if (route.cbor === true) content['application/cbor'] = { schema };
  return { required: doc.bodyOptional !== true, content };
}

function successOf(doc: RouteDoc): ResponseDoc | undefined {
  const r = doc.response;
  if (r === undefined) return undefined;
  return '_zod' in r ? { status: 200, schema: r } : r;
}

function responses(route: Route, doc: RouteDoc, output: SchemaConverter, ddi: boolean): Record<string, object> {
  const out: Record<string, object> = {};
  const success = successOf(doc);
  if (success === undefined) {
    out['2XX'] = { description: 'Success' };
  } else if (success.schema === undefined) {
    const content = success.contentType === undefined ? {} : { content: { [success.contentType]: {} } };
    out[String(success.status)] = { description: success.status === 204 ? 'No content' : 'Success', ...content };
  } else {
    const schema = output.convert(success.schema);
    const types = success.contentType !== undefined
      ? [success.contentType]
      : ['application/hal+json', 'application/json', ...(ddi && route.cbor === true ? ['application/cbor'] : [])];
    out[String(success.status)] = { description: 'Success', content: Object.fromEntries(types.map((t) => [t, { schema }])) };
  }
  const error = (name: keyof typeof ERROR_RESPONSES): object => ({ $ref: `#/components/responses/${name}` });
  out['400'] = error('BadRequest');
  if (route.auth !== undefined) {
    out['401'] = error('Unauthorized');
    out['403'] = error('Forbidden');
  }
  if (route.path.includes('/:')) out['404'] = error('NotFound');
  if (route.method !== 'GET' && !ddi && route.auth !== undefined) out['409'] = error('Conflict');
  out['default'] = error('Error');
  return out;
}

/** The error replies operations refer to: hawkBit's error body (spec 7). */
const ERROR_RESPONSES = {
  BadRequest: 'Bad request: a parameter or the body is not valid (the message names it)',
  Unauthorized: 'No or wrong credentials',
  Forbidden: 'The caller lacks the permission (or a quota is exceeded)',
  NotFound: 'Not found: the path names no entity',
  Conflict: 'Conflict: already exists, or changed concurrently',
  Error: 'Any other error, as the error catalogue says (spec 7)',
} as const;

function errorResponses(): Record<string, object> {
  return Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, description]) =>
    [name, { description, content: { 'application/hal+json': { schema: ERROR_REF }, 'application/json': { schema: ERROR_REF } } }]));
}
