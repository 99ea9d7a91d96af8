/**
 * The operator commands of `peregrine`: `rollouts list`, `rollout watch <id>`, `targets find <FIQL>`.
 * They talk to a running server (`--url`, PEREGRINE_URL) with credentials from the environment only;
 * a failure is one line on stderr, exit 2 for bad input and 1 otherwise, never a stack trace.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_URL, OpsError } from './client.js';
import type { OpsIo } from './io.js';
import { rolloutWatch, DEFAULT_INTERVAL_MS, type RolloutWatchOptions } from './rollout-watch.js';
import { rolloutsList, type RolloutsListOptions } from './rollouts-list.js';
import { targetsFind, DEFAULT_FIND_LIMIT, type TargetsFindOptions } from './targets-find.js';

const PROCESS_IO: OpsIo = { out: process.stdout, err: process.stderr, env: process.env };

/** Runs a command and turns its outcome into an exit code; failures become `peregrine: <message>`. */
export async function exitCodeOf(io: OpsIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    const known = e instanceof OpsError;
    io.err.write(`peregrine: ${known ? e.message : e instanceof Error ? e.message : String(e)}\n`);
    return known ? e.exitCode : 1;
  }
}

/** --url and the refused secret options every operator command takes. */
function serverOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (default: PEREGRINE_URL, else ${DEFAULT_URL})`)
    .addOption(new Option('--password <password>').hideHelp())
    .addOption(new Option('--token <token>').hideHelp())
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
    .addHelpText('after', '\nCredentials come from the environment: PEREGRINE_USER and PEREGRINE_PASSWORD, or PEREGRINE_TOKEN (a bearer token).');
}

interface Secrets {
  readonly password?: string;
  readonly token?: string;
}

/** Secrets on the command line end up in shell history and `ps`: refused (exit 2). */
function refuseSecrets(opts: Secrets): void {
  if (opts.password !== undefined || opts.token !== undefined) {
    throw new OpsError('credentials are not taken on the command line (shell history, ps); set PEREGRINE_USER and PEREGRINE_PASSWORD, or PEREGRINE_TOKEN', 2);
  }
}

/** Ends the process with `run`'s exit code (pooled connections would otherwise keep it alive a while). */
async function finish(run: () => Promise<number>): Promise<void> {
  process.exit(await exitCodeOf(PROCESS_IO, run));
}

export function addOpsCommands(program: Command): void {
  const rollouts = program.command('rollouts').description('rollouts on a running server');
  serverOptions(rollouts.command('list').description('every rollout: id, name, status, progress (finished/total), created'))
    .option('--status <status>', 'only rollouts with this status (running, finished, ...)')
    .action((opts: Secrets & RolloutsListOptions) => finish(async () => {
      refuseSecrets(opts);
      return rolloutsList(opts, PROCESS_IO);
    }));

  const rollout = program.command('rollout').description('one rollout on a running server');
  const watch = rollout.command('watch').argument('<id>', 'rollout id')
    .description('progress bars per group until the rollout is over (exit 0 finished, 1 stopped/failed or Ctrl-C)');
  serverOptions(watch)
    .option('--poll', 'read the rollout every interval instead of following its live events')
    .option('--interval <ms>', `polling interval (default ${DEFAULT_INTERVAL_MS})`)
    .action((id: string, opts: Secrets & RolloutWatchOptions) => finish(async () => {
      refuseSecrets(opts);
      const interrupt = new AbortController();
      process.once('SIGINT', () => interrupt.abort());
      return rolloutWatch(id, opts, PROCESS_IO, interrupt.signal);
    }));

  const targets = program.command('targets').description('targets on a running server');
  serverOptions(targets.command('find').argument('<fiql>', "a FIQL query, e.g. 'updateStatus==error'").description('matching targets: controllerId, name, updateStatus, lastControllerRequestAt'))
    .option('--limit <n>', `at most this many targets (default ${DEFAULT_FIND_LIMIT})`)
    .action((fiql: string, opts: Secrets & TargetsFindOptions) => finish(async () => {
      refuseSecrets(opts);
      return targetsFind(fiql, opts, PROCESS_IO);
    }));
}
