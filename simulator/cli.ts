#!/usr/bin/env node
/**
 * peregrine-sim: a virtual fleet of DDI devices driven by a scenario file.
 *   npx peregrine-sim --scenario simulator/scenarios/smoke.yaml [--url URL] [--tenant T] [--devices N]
 *                     [--duration S] [--admin user:password] [--tenant-per-run [--keep-tenant]] [--report FILE] [--quiet]
 * Exit codes: 0 every expectation held; 1 an expectation failed or the server could not be reached;
 * 2 bad input (scenario, options, admin credentials).
 */
import { Command, InvalidArgumentError } from 'commander';
import { runScenario } from './run.js';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function positive(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

interface Flags {
  scenario: string; url?: string; tenant?: string; devices?: number; duration?: number; admin?: string; report?: string; quiet?: boolean;
  tenantPerRun?: boolean; keepTenant?: boolean;
}

const program = new Command('peregrine-sim')
  .description('a virtual fleet of devices speaking DDI to a peregrine or hawkBit server, driven by a scenario')
  .requiredOption('-s, --scenario <file>', 'scenario YAML file')
  .option('--url <url>', 'server base URL (overrides the scenario)')
  .option('--tenant <tenant>', 'tenant (overrides the scenario)')
  .option('--devices <n>', 'total devices, groups rescaled in proportion (overrides the scenario)', positiveInt)
  .option('--duration <seconds>', 'longest run time in seconds (overrides the scenario)', positive)
  .option('--admin <user:password>', 'Management credentials (overrides the scenario)')
  .option('--tenant-per-run', 'run in a tenant of its own, SIM-<run id>, created first and deleted at the end (admin needs SYSTEM_ADMIN)')
  .option('--keep-tenant', 'with --tenant-per-run: keep the run\'s tenant and print its credentials')
  .option('--report <file>', 'write the final report as JSON')
  .option('-q, --quiet', 'no live display and no table; failures still go to stderr')
  .exitOverride((e) => { process.exit(e.exitCode === 0 ? 0 : 2); })
  .action(async (flags: Flags) => {
    const abort = new AbortController();
    const stop = (): void => { abort.abort(); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const result = await runScenario(flags.scenario, {
      overrides: {
        url: flags.url, tenant: flags.tenant, devices: flags.devices, duration: flags.duration, admin: flags.admin,
        ...(flags.tenantPerRun === true ? { tenantPerRun: true } : {}), ...(flags.keepTenant === true ? { keepTenant: true } : {}),
      },
      quiet: flags.quiet === true, reportFile: flags.report, signal: abort.signal,
    });
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.exitCode = result.exitCode;
  });

await program.parseAsync(process.argv);
