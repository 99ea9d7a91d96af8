/**
 * A private RabbitMQ node for a benchmark or a test file: its own node name, AMQP and distribution
 * ports, data and log directories, configuration and Erlang cookie (HOME), no plugins, listening on
 * 127.0.0.1 only, never the system broker. Virtual hosts (each with full rights for guest/guest) are
 * created at boot from a definitions file. `stop()` then `start()` restarts it on the same port with
 * its data (durable queues and persistent messages survive), as a broker restart in production does.
 * Boot takes about 5 s on a 2-core machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { killProcessTree } from './process-tree.js';
import { answersTcp, freePort } from './redis.js';

export interface RabbitNode {
  /** AMQP port on 127.0.0.1. */
  readonly port: number;
  readonly vhosts: readonly string[];
  /** amqp://127.0.0.1:<port> (credentials guest/guest, vhost as a separate setting). */
  readonly url: string;
  readonly dir: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Starts the node again after stop() or kill() (same port, same data). */
  start(): Promise<void>;
  /** Clean shutdown (SIGTERM). */
  stop(): Promise<void>;
  /** Crash (SIGKILL). */
  kill(): Promise<void>;
  /** stop() and remove the data directory. */
  destroy(): Promise<void>;
}

interface RabbitOptions {
  readonly vhosts?: readonly string[];
  /** Parent of the node's directory (default the OS temp dir). */
  readonly parentDir?: string;
  /** Called with each started process id (tests note them to kill strays). */
  readonly onPid?: (pid: number, exited: Promise<void>) => void;
}

/** The rabbitmq-server start script that runs as the calling user (Debian's /usr/sbin one switches to user rabbitmq). */
function findRabbitServer(): string {
  const candidates = ['/usr/lib/rabbitmq/bin/rabbitmq-server', ...(process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, 'rabbitmq-server'))];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  throw new Error('rabbitmq-server not found; the DMF tests and benchmark need it (Debian/Ubuntu: apt-get install rabbitmq-server)');
}

/** How long a boot may take before it counts as failed: ~5 s on an idle 2-core machine, over 60 s under nice at load 20. */
export const RABBIT_BOOT_MS = 180_000; // 3 minutes

export async function startRabbit(options: RabbitOptions = {}): Promise<RabbitNode> {
  const binary = findRabbitServer();
  const vhosts = options.vhosts ?? ['/'];
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'peregrine-rabbit-'));
  const [port, dist] = [await freePort(), await freePort()];
  const name = `peregrine-${process.pid}-${port}@localhost`;
  const definitions = {
    users: [{ name: 'guest', password: 'guest', tags: 'administrator' }],
    vhosts: vhosts.map((v) => ({ name: v })),
    permissions: vhosts.map((v) => ({ user: 'guest', vhost: v, configure: '.*', write: '.*', read: '.*' })),
  };
  writeFileSync(join(dir, 'definitions.json'), JSON.stringify(definitions));
  writeFileSync(join(dir, 'rabbitmq.conf'), [
    `listeners.tcp.1 = 127.0.0.1:${port}`,
    `load_definitions = ${join(dir, 'definitions.json')}`,
    'loopback_users = none',
    'log.console = true',
    'log.console.level = warning',
    'log.file = false',
    '',
  ].join('\n'));
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(join(dir, 'rabbitmq-env.conf'), ''); // not the system's /etc/rabbitmq/rabbitmq-env.conf
  mkdirSync(join(dir, 'mnesia'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir, // a private Erlang cookie
    RABBITMQ_NODENAME: name,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(dist),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_PID_FILE: join(dir, 'pid'),
  };

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  const boot = async (): Promise<void> => {
    output = '';
    const c = spawn(binary, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-8000));
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    exited = new Promise((resolve) => c.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => {
      gone = true;
      if (child === c) child = undefined;
    });
    if (c.pid !== undefined) options.onPid?.(c.pid, exited);
    const deadline = Date.now() + RABBIT_BOOT_MS;
    while (!(await answersAmqp(port))) {
      if (gone || Date.now() > deadline) {
        killTree(c);
        await exited;
        throw new Error(`rabbitmq-server (${name}) did not start:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const c = child;
    if (c === undefined) return;
    // SIGTERM to the start script stops the node cleanly (its trap); SIGKILL must reach the Erlang VM itself
    if (signal === 'SIGKILL') killTree(c);
    else c.kill(signal);
    const timer = setTimeout(() => killTree(c), 15_000);
    await exited;
    clearTimeout(timer);
  };
  await boot();
  return {
    port,
    vhosts,
    url: `amqp://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child?.pid;
    },
    get running() {
      return child !== undefined;
    },
    start: () => (child === undefined ? boot() : Promise.resolve()),
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    destroy: async () => {
      await end('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SIGKILL for the start script and the Erlang VM it runs (killing the script alone leaves the VM running). */
function killTree(c: ChildProcess): void {
  if (c.pid !== undefined) killProcessTree(c.pid);
}

/** Whether an AMQP 0-9-1 server on `port` answers the protocol header with Connection.Start. */
function answersAmqp(port: number, timeoutMs = 1000): Promise<boolean> {
  // a method frame (type 1) on channel 0: the server speaks AMQP and accepts connections
  return answersTcp(port, Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), (data) => data[0] === 1, timeoutMs);
}
