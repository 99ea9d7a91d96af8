import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { inject } from 'vitest';
import { killProcessTree } from '../../bench/lib/process-tree.js';
import { answersTcp } from '../../bench/lib/redis.js';
import { redisServerArgs } from '../../src/store/redis/hash-encoding.js';

/** A redis-server started by a test. `stop` shuts it down cleanly, `kill` simulates a crash (SIGKILL). */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Its data directory; kept after stop/kill so a restart with `{ dir }` finds the AOF. */
  readonly dir: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers, like a hung server. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

export interface StartRedisOptions {
  /** Durable mode (AOF, fsync on every write) for crash tests. Default false: in-memory only. */
  readonly appendonly?: boolean;
  /** Data directory; default a fresh temporary one, removed when the test run ends. */
  readonly dir?: string;
  /** Port; default a free one. Pass the port of a stopped server to restart it where clients expect it. */
  readonly port?: number;
  /** Cluster mode (see redis-cluster.ts): the node's bus port is a second free port. */
  readonly cluster?: { readonly nodeTimeoutMs: number };
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Where this run keeps data directories and pid files: the global setup's directory, which its
 * teardown removes after killing every redis-server listed there. Test workers can end without
 * running 'exit' handlers, so the run, not the worker, cleans up.
 */
function runDir(): string | undefined {
  try {
    return inject('testTmpDir');
  } catch {
    return undefined; // not in a test worker: the global setup stops its own server
  }
}

/** Kills the redis-servers and RabbitMQ nodes test files started and did not stop (see runDir). */
export function killStrays(root: string): void {
  let pids: string[] = [];
  try {
    pids = readdirSync(join(root, 'pids'));
  } catch {
    return;
  }
  // a RabbitMQ start script's pid: its Erlang VM goes with it
  for (const pid of pids) killProcessTree(Number(pid));
}

let tenantCounter = 0;

/** A tenant name no other test (file, worker or run) uses, so tests can share one Redis. */
export function uniqueTenant(prefix = 't'): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++tenantCounter}`;
}

/** A Redis binary (redis-server, redis-cli) on PATH. */
export function findRedisBinary(name: 'redis-server' | 'redis-cli'): string {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} not found on PATH; the Redis tests need it (Debian/Ubuntu: apt-get install redis-server)`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a Redis on `port` answers PING within `timeoutMs`. */
export function pingRedis(port: number, timeoutMs = 500): Promise<boolean> {
  return answersTcp(port, 'PING\r\n', (data) => data.toString().startsWith('+PONG'), timeoutMs);
}

/** Starts a private redis-server and resolves when it answers PING. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = findRedisBinary('redis-server');
  const dir = options.dir ?? newTempDir();
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      const clusterArgs = options.cluster === undefined ? [] : [
        '--cluster-enabled', 'yes', '--cluster-port', String(await freePort()), '--cluster-config-file', join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout', String(options.cluster.nodeTimeoutMs), '--repl-diskless-sync-delay', '0',
      ];
      return await launch(binary, port, dir, options.appendonly === true, clusterArgs);
    } catch (err) {
      // a free port can be taken between the probe and the bind; a fixed port gets no second try
      if (options.port !== undefined || attempt >= 5) throw err;
    }
  }
}

function newTempDir(): string {
  return mkdtempSync(join(runDir() ?? tmpdir(), 'peregrine-redis-'));
}

/** Lists a child process in this run's pid directory until it exits, so the run's teardown kills it if a test file does not. */
export function notePid(pid: number | undefined): () => void {
  const root = runDir();
  if (pid === undefined || root === undefined) return () => {};
  const dir = join(root, 'pids');
  const file = join(dir, String(pid));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, '');
  } catch {
    return () => {};
  }
  return () => {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  };
}

async function launch(binary: string, port: number, dir: string, appendonly: boolean, extraArgs: readonly string[]): Promise<RedisServer> {
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--daemonize', 'no', '--logfile', '',
    '--appendonly', appendonly ? 'yes' : 'no', ...(appendonly ? ['--appendfsync', 'always'] : []), ...redisServerArgs(), ...extraArgs,
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const forgetPid = notePid(child.pid);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000); // always drained, so redis never blocks on a full pipe
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    running.delete(child);
    forgetPid();
  });
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = Date.now() + 10_000;
  while (!(await pingRedis(port, 300))) {
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`redis-server on port ${port} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (gone) return;
    child.kill('SIGCONT'); // a paused server would not act on SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}
