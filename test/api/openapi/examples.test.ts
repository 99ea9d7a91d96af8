/**
 * The worked examples of the API reference (recorded from a real server by scripts/api-examples.mjs):
 * each names a documented operation and a status that operation documents, its request body matches the
 * operation's request schema and its reply the schema of that status, so an example that no longer
 * matches the API fails here until the script records it again; every resource of the guide's walk has
 * one, and the document carries them where OpenAPI puts examples.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { API_EXAMPLES } from '../../../src/apidoc/examples.generated.js';
import { startApp, type App } from '../../helpers/app.js';
import { problems } from './instance-check.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('worked examples of the API reference', () => {
  let app: App;
  let doc: Json;

  beforeAll(async () => {
    app = await startApp('memory');
    doc = (await app.anon.get('/rest/v1/openapi.json')).json();
  });

  it('cover every resource of the walk: repository, targets, tags, filters, actions, rollouts, configuration, DDI', () => {
    const tags = new Set(API_EXAMPLES.map((e) => doc.paths[e.path]?.[e.method.toLowerCase()]?.tags?.[0]));
    for (const tag of ['Software Modules', 'Software Module Types', 'Distribution Sets', 'Distribution Set Types', 'Targets', 'Target Tags',
      'Target Types', 'Target Filters', 'Actions', 'Rollouts', 'System Configuration', 'DDI Root Controller']) {
      expect(tags, `an example for ${tag} (tags: ${[...tags].join(', ')})`).toContain(tag);
    }
    expect(API_EXAMPLES.length).toBeGreaterThanOrEqual(40);
  });

  it('each names a documented operation and status, and its bodies match the schemas', () => {
    for (const ex of API_EXAMPLES) {
      const where = `${ex.method} ${ex.request.url}`;
      const op = doc.paths[ex.path]?.[ex.method.toLowerCase()];
      expect(op, `${where}: ${ex.method} ${ex.path} is documented`).toBeDefined();
      expect(ex.response.status, where).toBeLessThan(300);
      const reply = op.responses[String(ex.response.status)];
      expect(reply, `${where}: documents ${ex.response.status}`).toBeDefined();
      if (ex.request.body !== undefined) {
        const media = op.requestBody.content['application/json'];
        expect(problems(doc, media.schema, ex.request.body), `${where} request`).toEqual([]);
        expect(media.examples[where].value).toEqual(ex.request.body);
      }
      if (ex.response.body !== undefined) {
        const media: Json = Object.values(reply.content)[0];
        expect(problems(doc, media.schema, ex.response.body), `${where} reply`).toEqual([]);
        expect(media.examples[where]).toEqual({ summary: `${where} -> ${ex.response.status}`, value: ex.response.body });
      }
    }
  });

  it('a bad example is caught: a reply missing a required field does not match', () => {
    const ex = API_EXAMPLES.find((e) => e.method === 'GET' && e.path === '/rest/v1/targets/{targetId}');
    expect(ex).toBeDefined();
    const { controllerId: _dropped, ...broken } = ex?.response.body as Record<string, unknown>;
    const schema = doc.paths['/rest/v1/targets/{targetId}'].get.responses['200'].content['application/json'].schema;
    expect(problems(doc, schema, broken)).toEqual(expect.arrayContaining(['$: missing controllerId']));
  });
});
