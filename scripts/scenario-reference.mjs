// Prints the scenario reference table, generated from the scenario schema (simulator/scenario.ts); with
// --write it replaces the table between its marker comments in docs/reference/simulator.md. Needs a build
// (npm run build): it reads dist/simulator/reference.js. test/unit/simulator-reference.test.ts fails while
// the page differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { REFERENCE_END, REFERENCE_START, scenarioReference } = await import(join(root, 'dist/simulator/reference.js'));
const table = scenarioReference();
if (!process.argv.includes('--write')) {
  process.stdout.write(`${table}\n`);
} else {
  const path = join(root, 'docs', 'reference', 'simulator.md');
  const readme = readFileSync(path, 'utf8');
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) {
    process.stderr.write(`docs/reference/simulator.md has no ${REFERENCE_START} ... ${REFERENCE_END} markers\n`);
    process.exit(1);
  }
  writeFileSync(path, readme.slice(0, start) + table + readme.slice(end + REFERENCE_END.length));
  process.stdout.write('docs/reference/simulator.md: scenario reference updated\n');
}
