// Builds dist/ in two parts, each only when its inputs changed since its last successful build:
//   src  tsc -p tsconfig.build.json (src/, simulator/, bench/, the tsconfigs, package-lock.json)
//   ui   scripts/build-ui.mjs (ui/ and that script)
// A part is stale when any input file or directory (a directory's time changes when a file is added or removed)
// is newer than its stamp, dist/.built-<part>, which a successful build sets to the time the build began (or
// its newest input's, when that is later).
// Prints one line per part it builds ("building (src changed)...") or "up to date", and touches nothing in dist/
// when nothing changed. `--always` builds both parts regardless (`npm run build`); `npm start` runs it without.
// Works on the package in the current directory (npm runs scripts there).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const always = process.argv.includes('--always');

const PARTS = [
  {
    name: 'src',
    inputs: ['src', 'simulator', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    command: [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
  },
  { name: 'ui', inputs: ['ui', join('scripts', 'build-ui.mjs')], command: [join(root, 'scripts', 'build-ui.mjs')] },
];

/** Newest modification time (ms) of `path` and everything under it; 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    max = Math.max(max, newest(join(path, entry)));
  }
  return max;
}

/** Why `part` must be built, or undefined when its stamp is not older than any input. */
function staleness(part, stamp, inputs) {
  if (always) return 'always';
  if (!existsSync(stamp)) return 'no previous build';
  return inputs > statSync(stamp).mtimeMs ? `${part.name} changed` : undefined;
}

let built = 0;
for (const part of PARTS) {
  const stamp = join(root, 'dist', `.built-${part.name}`);
  const inputs = Math.max(...part.inputs.map((input) => newest(join(root, input))));
  const reason = staleness(part, stamp, inputs);
  if (reason === undefined) continue;
  console.log(`building ${part.name} (${reason})...`);
  const began = new Date(Math.ceil(Math.max(Date.now(), inputs))); // an input dated in the future must not rebuild every time
  const result = spawnSync(process.execPath, part.command, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build of ${part.name} failed (exit ${result.status ?? result.signal}); dist/ may be incomplete`);
    process.exit(1);
  }
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(stamp, '');
  utimesSync(stamp, began, began); // a file edited during the build is newer than the stamp: built again next time
  built++;
}
if (built === 0) console.log('build: up to date');
