/**
 * `npm run bench -- <name> [options]`: runs one benchmark of bench/ (built JS), passing the options on.
 *   poll             DDI poll throughput and latency against a uWebSockets.js ceiling, fleet memory
 *   mgmt-targets     bulk target creation and FIQL query latency over 100,000 targets (Redis)
 *   artifact-upload  a 1 GiB artifact upload: MB/s and the server's event-loop delay (Redis)
 *   capacity         Redis memory, commands and CPU per target, poll, assignment and feedback (cluster node)
 *   dmf-status       UPDATE_ACTION_STATUS messages per second through the DMF connector (private RabbitMQ)
 *   rollout          a rollout over 100,000 targets (POST -> ready, start -> first group), 10,000 answering devices (Redis)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = ['poll', 'mgmt-targets', 'artifact-upload', 'capacity', 'dmf-status', 'rollout'] as const;
const [name, ...rest] = process.argv.slice(2);
if (name === undefined || !(BENCHMARKS as readonly string[]).includes(name)) {
  console.error(`usage: npm run bench -- <${BENCHMARKS.join('|')}> [options]   (each takes --help)`);
  process.exit(name === undefined ? 0 : 2);
}
const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
const result = spawnSync(process.execPath, [script, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
