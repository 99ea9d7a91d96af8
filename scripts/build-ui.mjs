// Builds the operator console (ui/) into dist/ui/: app.js (Preact + the views, one minified ES module),
// app.css, favicon.svg and index.html, whose asset links carry a content hash (?v=...) so the server
// can cache the assets for a year and index.html not at all. Prints the bundle sizes. `npm run build` runs it.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'ui', 'src');
const out = join(root, 'dist', 'ui');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

const common = { bundle: true, minify: true, write: false, logLevel: 'warning', legalComments: 'none' };
const [js, css] = await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: [join(src, 'main.tsx')],
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(root, 'ui', 'tsconfig.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
  }),
  esbuild.build({ ...common, entryPoints: [join(src, 'app.css')] }),
]);

const files = { 'app.js': js.outputFiles[0].contents, 'app.css': css.outputFiles[0].contents };
const version = createHash('sha256').update(files['app.js']).update(files['app.css']).digest('hex').slice(0, 12);
const html = (await readFile(join(src, 'index.html'), 'utf8')).replaceAll('__VERSION__', version);

await Promise.all([
  writeFile(join(out, 'app.js'), files['app.js']),
  writeFile(join(out, 'app.css'), files['app.css']),
  writeFile(join(out, 'index.html'), html),
  copyFile(join(src, 'favicon.svg'), join(out, 'favicon.svg')),
]);

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
for (const [name, bytes] of Object.entries(files)) {
  console.log(`console: dist/ui/${name} ${kb(bytes.length)} (${kb(gzipSync(bytes).length)} gzip)`);
}
