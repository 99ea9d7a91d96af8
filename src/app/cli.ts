/**
 * `peregrine serve [--config FILE] [--workers N]`, `peregrine hash-password`, and the operator
 * commands against a running server (src/ops-cli: rollouts list, rollout watch, targets find).
 * serve prints exactly one line with the URL and its pid once listening and shuts down gracefully on
 * SIGTERM/SIGINT (exit 0); a second signal exits at once (exit 1).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { ConfigError, hashPassword, loadConfig } from '../config/index.js';
import { addOpsCommands } from '../ops-cli/index.js';
import type { ServerOverrides } from './server.js';
import { startLoops, type RunningLoops } from './workers.js';

const DEFAULT_CONFIG = './config.yaml';
const SHUTDOWN_GRACE_MS = 10_000; // in-flight requests get 10 seconds

export async function runCli(argv: readonly string[], overrides: ServerOverrides = {}): Promise<void> {
  const program = new Command('peregrine').description('hawkBit-compatible software-update rollout server').showHelpAfterError();

  program
    .command('serve')
    .description('run the server')
    .option('-c, --config <file>', `configuration file (default ${DEFAULT_CONFIG}; built-in defaults when that file is missing)`)
    .option('-w, --workers <n>', 'event loops (threads) serving the port, redis store only (default: server.workers, 1)')
    .action(async (opts: { config?: string; workers?: string }) => {
      const config = loadConfig({
        file: opts.config ?? DEFAULT_CONFIG,
        required: opts.config !== undefined,
        flags: [{ name: '--workers', path: ['server', 'workers'], value: opts.workers }],
      });
      let started: RunningLoops | undefined;
      const running = (started = await startLoops(config, overrides, (err) => {
        if (started === undefined) {
          process.stderr.write(`peregrine: ${err.message}\n`);
          process.exit(1);
        }
        started.server.logger.error({ err }, `${err.message}; shutting down (exit 1)`);
        void started.close(SHUTDOWN_GRACE_MS).finally(() => process.exit(1));
      }));
      const { server } = running;
      // its own pid: under `npm start` (npm and sh in between) the pid to signal is this process's, not the one that started it
      process.stdout.write(`peregrine listening on ${server.url} (store: ${config.store.kind})${loopsNote(config.server.workers, running.loops)}, pid ${process.pid}\n`);
      let stopping = false;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (stopping) {
          server.logger.warn({ signal }, 'second signal: exiting without waiting');
          process.exit(1);
        }
        stopping = true;
        server.logger.info({ signal }, 'shutting down');
        running.close(SHUTDOWN_GRACE_MS).then(
          () => process.exit(0),
          (err: unknown) => {
            server.logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      // A forgotten promise in some background loop must not take the whole server down.
      process.on('unhandledRejection', (err) => server.logger.error({ err }, 'unhandled promise rejection'));
    });

  program
    .command('hash-password')
    .description('read a password from stdin and print its scrypt hash for config.yaml')
    .action(async () => {
      const input = await readStdin();
      const password = input.replace(/\r?\n$/, '');
      if (password === '') throw new ConfigError('hash-password: no password on stdin (try: echo -n secret | peregrine hash-password)');
      process.stdout.write(`${hashPassword(password)}\n`);
    });

  addOpsCommands(program);

  await program.parseAsync([...argv]);
}

/** Nothing for the default single loop; otherwise how many loops serve, and why fewer than asked. */
function loopsNote(wanted: number, loops: number): string {
  if (wanted === 1) return '';
  if (loops === 1) return ` with 1 event loop, not ${wanted}: workers need the redis store (the memory store lives in one thread)`;
  return ` with ${loops} event loops`;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (end with Enter, then Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** True when node runs this file (or the bin/peregrine.js launcher), not when a test imports it. */
function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    const real = realpathSync(entry);
    return real === fileURLToPath(import.meta.url) || /[\\/]bin[\\/]peregrine(\.js)?$/.test(real);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  runCli(process.argv).catch((err: unknown) => {
    // Configuration and startup problems are for people: the message, not a stack.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`peregrine: ${message}\n`);
    process.exit(1);
  });
}
