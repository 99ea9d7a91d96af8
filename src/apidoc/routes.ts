/**
 * Serves the OpenAPI document and the API reference page, without authentication (hawkBit's
 * springdoc serves /v3/api-docs openly too): `GET /rest/v1/openapi.json` and `GET /v3/api-docs`
 * (the same bytes), and `GET /rest/v1/docs` (a self-contained HTML page that renders the document;
 * no CDN, no external font). The document is built once, on the first request, from every route the
 * server registers (`all`, read then, when the list is complete).
 */
import type { Handler, Route } from '../http/types.js';
import { openApiDocument, type ApiInfo } from './document.js';
import { referencePage } from './page.js';

export const OPENAPI_PATHS = ['/rest/v1/openapi.json', '/v3/api-docs'] as const;
export const REFERENCE_PAGE_PATH = '/rest/v1/docs';

export function apiDocRoutes(all: () => readonly Route[], info: ApiInfo): Route[] {
  let built: { json: string; page: string } | undefined;
  const build = (): { json: string; page: string } => {
    if (built === undefined) {
      const doc = openApiDocument(all(), info);
      built = { json: JSON.stringify(doc), page: referencePage(doc) };
    }
    return built;
  };
  const document: Handler = () => {
    const text = build().json;
    return { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }, body: text };
  };
  const page: Handler = () => ({
    status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }, body: build().page,
  });
  return [
    ...OPENAPI_PATHS.map((path): Route => ({
      method: 'GET', path, name: 'openapi', produces: 'other', handler: document,
      doc: { summary: 'The OpenAPI 3.1 document of this server', response: { status: 200, contentType: 'application/json' } },
    })),
    {
      method: 'GET', path: REFERENCE_PAGE_PATH, name: 'api reference', produces: 'other', handler: page,
      doc: { summary: 'The API reference page (HTML; renders the OpenAPI document)', response: { status: 200, contentType: 'text/html' } },
    },
  ];
}
