import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { redisServerArgs } from '../../src/store/redis/hash-encoding.js';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface BenchRedis {
  readonly url: string;
  /** The redis-server process (its CPU time is read from /proc). */
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * A private redis-server (no persistence) on a free port, for one benchmark run, with the settings
 * peregrine recommends (REDIS_SETTINGS) and `settings` over them. With `cluster`, it
 * is a Redis Cluster of this one master serving every slot: the layout (and per-key overhead) of a
 * cluster node, without the noise of several processes.
 */
export async function startRedis(
  options: { readonly cluster?: boolean; readonly settings?: Readonly<Record<string, string>> } = {},
): Promise<BenchRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-bench-redis-'));
  const clusterArgs = options.cluster === true ? ['--cluster-enabled', 'yes', '--cluster-port', String(await freePort()), '--cluster-config-file', join(dir, 'nodes.conf')] : [];
  const child: ChildProcess = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...redisServerArgs(options.settings), ...clusterArgs,
  ], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (await answers(port)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (options.cluster === true) await serveAllSlots(`redis://127.0.0.1:${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Redis INFO's used_memory (bytes). */
export async function usedMemory(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    return Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? 0);
  } finally {
    await client.close();
  }
}

async function serveAllSlots(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    await client.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
    for (let i = 0; i < 100 && !/cluster_state:ok/.test(await client.clusterInfo()); i++) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await client.close();
  }
}

function answers(port: number): Promise<boolean> {
  return answersTcp(port, 'PING\r\n', (d) => d.toString().startsWith('+PONG'), 1000);
}

/** Whether a server on 127.0.0.1:`port` answers `hello` with something `accept` likes, within `timeoutMs`. */
export function answersTcp(port: number, hello: Buffer | string, accept: (data: Buffer) => boolean, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(hello));
    socket.once('data', (data) => done(accept(data)));
  });
}
