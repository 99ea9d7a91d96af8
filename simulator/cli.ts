#!/usr/bin/env node
/**
 * peregrine device simulator:
 *   node dist/simulator/cli.js run <scenario.yaml> [--url URL] [--devices N] [--duration S] [--admin user:pass]
 * Prints a summary table; exits 1 when the error share exceeded the scenario's maxErrorRate, 2 on bad input.
 */
import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { startFleet, controllerIdOf } from './fleet.js';
import type { DeviceAuth } from './device.js';
import { loadScenario, ScenarioError, type Scenario } from './scenario.js';
import { adminClient, enableGatewayToken, setConfig, prepareTargetTokens, targetTokenOf } from './setup.js';
import { formatSummary } from './summary.js';
import { totalErrors } from './stats.js';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

interface RunFlags { url?: string; devices?: number; duration?: number; admin?: string; progress: boolean }

async function run(file: string, flags: RunFlags): Promise<number> {
  const loaded = loadScenario(file);
  const s: Scenario = {
    ...loaded,
    server: flags.url ?? loaded.server,
    admin: flags.admin ?? loaded.admin,
    durationSeconds: flags.duration ?? loaded.durationSeconds,
    devices: { ...loaded.devices, count: flags.devices ?? loaded.devices.count },
  };
  const ids = Array.from({ length: s.devices.count }, (_, i) => controllerIdOf(s.devices.prefix, i));
  const mode = s.devices.auth;
  if (s.admin) {
    const admin = adminClient(s.server, s.admin);
    for (const [key, value] of Object.entries(s.tenantConfig)) await setConfig(admin, key, value);
    if (mode.mode === 'gateway') await enableGatewayToken(admin, mode.token);
    if (mode.mode === 'target') await prepareTargetTokens(admin, mode.token, ids);
  }
  const auth = (id: string): DeviceAuth => mode.mode === 'target' ? { mode: 'target', token: targetTokenOf(mode.token, id) } : mode;
  const fleet = startFleet({
    server: s.server, tenant: s.tenant, count: s.devices.count, prefix: s.devices.prefix, auth,
    durationMs: s.durationSeconds * 1000, concurrency: s.concurrency,
    behaviour: {
      timeScale: s.timeScale, minSleepMs: s.minSleepMs, maxSleepMs: s.maxSleepMs, failureRate: s.failureRate, denyRate: s.denyRate,
      attributes: s.attributes, rangeChunkBytes: s.rangeChunkBytes,
    },
  });
  const stopOnSignal = (): void => { void fleet.stop(); };
  process.once('SIGINT', stopOnSignal);
  const bar = flags.progress && process.stdout.isTTY
    ? new cliProgress.SingleBar({ format: '{bar} {value}/{total}s | polls {polls} | done {ok} | failed {failed} | errors {errors}' }, cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(Math.ceil(s.durationSeconds), 0, { polls: 0, ok: 0, failed: 0, errors: 0 });
  const tick = setInterval(() => {
    const st = fleet.stats;
    bar?.update(Math.min(Math.ceil(s.durationSeconds), Math.floor((Date.now() - st.startedAt) / 1000)),
      { polls: st.polls, ok: st.deploymentsSucceeded, failed: st.deploymentsFailed, errors: totalErrors(st) });
  }, 500);
  const stats = await fleet.done;
  clearInterval(tick);
  bar?.stop();
  process.off('SIGINT', stopOnSignal);
  console.log(formatSummary(stats));
  const errors = totalErrors(stats);
  if (stats.requests === 0 || errors > s.maxErrorRate * stats.requests) {
    console.error(`too many errors: ${errors} of ${stats.requests} requests (allowed share ${s.maxErrorRate})`);
    return 1;
  }
  return 0;
}

const program = new Command('peregrine-sim').description('virtual devices speaking DDI to a peregrine/hawkBit server');
program.command('run')
  .argument('<scenario>', 'scenario YAML file')
  .option('--url <url>', 'server base URL (overrides the scenario)')
  .option('--devices <n>', 'number of devices (overrides the scenario)', positiveInt)
  .option('--duration <seconds>', 'run time in seconds (overrides the scenario)', positiveInt)
  .option('--admin <user:password>', 'Management credentials used to prepare the tenant')
  .option('--no-progress', 'no progress line')
  .action(async (file: string, flags: RunFlags) => {
    try {
      process.exitCode = await run(file, flags);
    } catch (e) {
      console.error(e instanceof ScenarioError ? e.message : `simulation failed: ${(e as Error).message}`);
      process.exitCode = 2;
    }
  });

await program.parseAsync(process.argv);
