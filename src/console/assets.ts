/**
 * The built console (dist/ui, made by scripts/build-ui.mjs) read into memory once: each file with its
 * Content-Type, ETag and caching rule. index.html is never cached (it names the current asset versions);
 * the assets it links carry `?v=<content hash>` and are cached for a year.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { etagOf } from '../http/etag.js';

export interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** dist/ui of the package this file belongs to (run from src/ by the tests, from dist/src/ in production). */
export function defaultUiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'ui');
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), 'dist', 'ui');
    dir = parent;
  }
}

/** The files of `dir` by name (`index.html`, `app.js`, ...); undefined when the console is not built. */
export function loadAssets(dir: string): ReadonlyMap<string, Asset> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    const body = readFileSync(path);
    assets.set(name, {
      body,
      contentType: TYPES[extname(name)] ?? 'application/octet-stream',
      etag: etagOf(body),
      cacheControl: name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable',
    });
  }
  return assets;
}
