/**
 * The console's static files at /ui/ (src/console): redirect, types, caching, ETag/304, the security
 * headers on every answer, no authentication, and the 503 that says to build when dist/ui is missing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleModule } from '../../src/console/index.js';
import type { Request } from '../../src/http/types.js';
import { startApp, type App } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await startApp();
});

function expectSecurityHeaders(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('same-origin');
}

describe('console static files', () => {
  it('redirects /ui to /ui/', async () => {
    const res = await fetch(`${app.url}/ui`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/ui/');
  });

  it('serves index.html uncached, without credentials, with the security headers and an ETag', async () => {
    const res = await app.anon.get('/ui/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expectSecurityHeaders(res.headers);
    expect(res.text).toMatch(/<script type="module" src="\.\/app\.js\?v=[0-9a-f]{12}"><\/script>/);
    expect(res.text).not.toMatch(/<script>(?!<)/); // no inline script
    const etag = res.headers.get('etag') ?? '';
    const again = await app.anon.get('/ui/', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('serves each built asset by path with its type and a year of caching', async () => {
    const js = await app.anon.get('/ui/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(js.headers);
    const css = await app.anon.get('/ui/app.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await app.anon.get('/ui/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
    expect((await app.anon.get('/ui/nope.js')).status).toBe(404);
  });

  it('answers 503 naming npm run build when the console is not built', async () => {
    const module = consoleModule(mkdtempSync(join(tmpdir(), 'peregrine-no-ui-')));
    const index = module.routes.find((r) => r.path === '/ui/');
    expect(module.routes.map((r) => r.path)).toEqual(['/ui', '/ui/']);
    const reply = await index?.handler({ headers: {} } as unknown as Request);
    expect(reply?.status).toBe(503);
    expect(String(reply?.body)).toContain('npm run build');
  });
});
