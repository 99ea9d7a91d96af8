/**
 * The operator console (issue 22): the static files of dist/ui under /ui/. No authentication (the
 * page signs in through /ui/api); every reply carries a strict Content-Security-Policy (no inline
 * script, nothing from elsewhere). The router has no wildcard, so each built file is a route.
 */
import type { AppModule } from '../module.js';
import { noneMatch } from '../http/etag.js';
import type { Reply, Request, Route } from '../http/types.js';
import { defaultUiDir, loadAssets, type Asset } from './assets.js';

const SECURITY: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

function serve(asset: Asset, req: Request): Reply {
  const headers = { ...SECURITY, 'Content-Type': asset.contentType, 'Cache-Control': asset.cacheControl, ETag: asset.etag };
  if (noneMatch(req.headers['if-none-match'], asset.etag)) return { status: 304, headers };
  return { status: 200, headers, body: asset.body };
}

const NOT_BUILT: Reply = {
  status: 503,
  headers: { ...SECURITY, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  body: 'The console is not built: run `npm run build` (it writes dist/ui), then restart the server.\n',
};

function route(path: string, handler: Route['handler']): Route {
  return { method: 'GET', path, handler, produces: 'other', etag: false, doc: false, name: path.startsWith('/ui/') && path !== '/ui/' ? '/ui/:asset' : path };
}

/** The console's routes; `dir` defaults to this package's dist/ui, read once here. */
export function consoleModule(dir: string = defaultUiDir()): AppModule {
  const assets = loadAssets(dir);
  const index = assets?.get('index.html');
  const routes: Route[] = [
    route('/ui', () => ({ status: 302, headers: { Location: '/ui/', 'Cache-Control': 'no-cache' } })),
    route('/ui/', (req) => (index === undefined ? NOT_BUILT : serve(index, req))),
  ];
  for (const [name, asset] of assets ?? []) {
    if (name !== 'index.html') routes.push(route(`/ui/${name}`, (req) => serve(asset, req)));
  }
  return { name: 'console', routes };
}
