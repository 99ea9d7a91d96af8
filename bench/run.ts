/**
 * `npm run bench` runs every benchmark below in turn; `npm run bench -- <name> [options]` runs one,
 * passing the options on. Either way the run's results go to bench/results/<time>.json and
 * bench/results/latest.md (machine, versions, one table per benchmark) and the tables are printed.
 *   ddi              DDI poll (memory and Redis; no open action, open action, 304), deploymentBase, feedback,
 *                    artifact download (whole and ranged), each against a uWS ceiling under wrk; memory per target
 *   mgmt-targets     bulk target creation and FIQL query latency over 100,000 targets (Redis)
 *   rollout          a rollout over 100,000 targets (POST -> ready, start -> first group; Redis), 10,000 devices of the
 *                    simulator (its own process) through 5 groups against the poll-interval bound (memory and Redis,
 *                    3 rounds each), a ramp's release rate against its configured one at 10,000 targets (Redis);
 *                    `rollout --fleet-at-scale` (by name only, 15+ minutes): 100,000 devices polling every 60 s, 10 groups
 *   artifact-upload  a 1 GiB artifact upload: MB/s and the server's event-loop delay (Redis); by name only
 *   capacity         Redis memory, commands and CPU per target, poll, assignment, feedback and group step (2,000 targets)
 *   dmf-status       UPDATE_ACTION_STATUS messages per second through the DMF connector (private RabbitMQ), memory and Redis
 *   sim-fleet        the simulator's own cost per device and poll lag (peregrine or the ceiling); by name only
 *   idle-tenants     Redis commands, CPU per second of 1,000 idle runtime tenants on one Redis; by name only
 *   events           1,000 SSE subscribers to a rollout of 10,000 devices: event lag, memory per subscriber, poll with/without them (memory)
 * `poll` is another name for `ddi`. `--smoke` (all, or one) runs each with tiny sizes and a second of load.
 * The terminal gets narrow tables; latest.md the wide ones, latest.svg a bar per ratio row. A run where a benchmark
 * fails writes <time>-failed.json only (latest.* stay). `--help` (alone, or after a name) prints the options and
 * runs nothing; `compare A.json B.json` prints two result files side by side with the change in each row.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareFiles } from './lib/compare.js';
import { SECTION_FILE_ENV, writeRun } from './lib/results.js';
import type { Section } from './lib/section.js';

interface Bench {
  readonly name: string;
  /** The full run (`npm run bench`): one invocation per options list (a store each, say). */
  readonly all?: readonly (readonly string[])[];
  /** Options of a smoke run: tiny sizes, a second of load. */
  readonly smoke?: readonly string[];
  readonly what: string;
}

const BENCHMARKS: readonly Bench[] = [
  { name: 'ddi', all: [[]], smoke: ['--smoke'], what: 'DDI poll, deploymentBase, feedback, artifact download; memory per target' },
  { name: 'mgmt-targets', all: [['--requests', '20', '--budget', '15']], smoke: ['--fleet', '1000', '--requests', '2', '--budget', '1'], what: 'bulk create, FIQL over the fleet' },
  {
    name: 'rollout', all: [[]],
    smoke: ['--fleet', '200', '--groups', '2', '--devices', '50', '--waves', '2', '--rounds', '1', '--ramp-targets', '300', '--ramp-rate', '600', '--ramp-seconds', '5'],
    what: 'rollout creation over 100,000 targets; 10,000 simulated devices through a rollout end to end (memory, Redis); a ramp\'s release rate',
  },
  { name: 'artifact-upload', what: '1 GiB upload' },
  { name: 'capacity', all: [['--targets', '2000']], smoke: ['--targets', '200', '--idle', '1'], what: 'Redis commands, CPU and bytes per poll, assignment, feedback, group step' },
  { name: 'dmf-status', all: [['--store', 'memory'], ['--store', 'redis']], smoke: ['--things', '10', '--per-thing', '3'], what: 'DMF UPDATE_ACTION_STATUS messages per second (memory, Redis)' },
  { name: 'sim-fleet', what: 'simulator cost per device' },
  { name: 'idle-tenants', what: 'Redis commands/s of 1,000 idle tenants created at runtime' },
  { name: 'events', all: [[]], smoke: ['--smoke'], what: 'live events: 1,000 SSE subscribers, lag, memory, poll with/without' },
];

const USAGE = [
  'usage: npm run bench [-- <benchmark> [options]] [--smoke]',
  '       npm run bench -- <benchmark> --help     the benchmark\'s options; runs nothing',
  '       npm run bench -- compare A.json B.json  two result files side by side, with the change in each row',
  '',
  'Without a benchmark, runs the ones marked * in turn. Results: bench/results/<time>.json, latest.md (wide',
  'tables), latest.svg (ratio chart); a run where a benchmark fails writes <time>-failed.json and keeps latest.*.',
  '  --smoke      tiny sizes and a second of load (the figures mean nothing; checks that everything runs)',
  '  -h, --help   this text',
  '',
  'benchmarks:',
  ...BENCHMARKS.map((b) => `  ${b.all === undefined ? ' ' : '*'} ${b.name.padEnd(16)} ${b.what}`),
].join('\n');

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const positional = args.filter((a) => a !== '--smoke');
const asked = positional[0]?.startsWith('-') === false ? positional[0] : undefined;
const rest = asked === undefined ? positional : positional.slice(1);
const help = rest.includes('--help') || rest.includes('-h');
if (asked === undefined && help) {
  console.log(USAGE);
  process.exit(0);
}
if (asked === 'compare') {
  if (rest.length !== 2) {
    console.error('usage: npm run bench -- compare A.json B.json');
    process.exit(2);
  }
  try {
    console.log(compareFiles(rest[0]!, rest[1]!));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  process.exit(0);
}
const name = asked === 'poll' ? 'ddi' : asked;
if (name !== undefined && !BENCHMARKS.some((b) => b.name === name)) {
  console.error(`unknown benchmark ${name}\n${USAGE}`);
  process.exit(2);
}
if (name !== undefined && help) {
  // the benchmark's own --help: prints its options and exits; nothing is run and no results are written
  const r = spawnSync(process.execPath, [fileURLToPath(new URL(`./${name}.js`, import.meta.url)), '--help'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const chosen = name === undefined ? BENCHMARKS.filter((b) => b.all !== undefined) : BENCHMARKS.filter((b) => b.name === name);

const startedAt = new Date();
const sections: Section[] = [];
let failed = false;
const dir = mkdtempSync(join(tmpdir(), 'peregrine-bench-run-'));
try {
  for (const b of chosen) {
    const script = fileURLToPath(new URL(`./${b.name}.js`, import.meta.url));
    if (!existsSync(script)) {
      sections.push({ name: b.name, params: {}, rows: [], figures: {}, notes: [`not available: bench/${b.name}.ts does not exist in this checkout (${b.what})`] });
      continue;
    }
    const invocations = name === undefined ? (smoke ? [b.smoke ?? []] : (b.all ?? [[]])) : [[...rest, ...(smoke ? (b.smoke ?? []) : [])]];
    for (const [i, options] of invocations.entries()) {
      const file = join(dir, `${b.name}-${i}.json`);
      console.log(`\n=== ${b.name} ${options.join(' ')} (load average ${loadavg().map((x) => x.toFixed(2)).join(' ')})`);
      const began = performance.now();
      const result = spawnSync(process.execPath, [script, ...options], { stdio: 'inherit', env: { ...process.env, [SECTION_FILE_ENV]: file } });
      const seconds = Math.round((performance.now() - began) / 1000);
      if (result.status !== 0 || !existsSync(file)) {
        failed = true;
        sections.push({ name: b.name, params: { options }, rows: [], figures: { seconds }, notes: [`FAILED: exit ${result.status ?? result.signal}; no figures`] });
        continue;
      }
      const section = JSON.parse(readFileSync(file, 'utf8')) as Section;
      sections.push({ ...section, figures: { ...section.figures, 'wall time of this benchmark (s)': seconds } });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const total = Math.round((Date.now() - startedAt.getTime()) / 1000);
const extra = { 'total wall time (s)': total, 'load average at the end (1, 5, 15 min)': loadavg().map((x) => x.toFixed(2)).join(' '), ...(smoke ? { smoke: 'yes: tiny sizes, figures mean nothing' } : {}) };
writeRun(sections, startedAt, extra, failed);
process.exit(failed ? 1 : 0);
