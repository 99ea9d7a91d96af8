import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  stop(): Promise<void>;
}

/** A private redis-server (no persistence) on a free port, for one benchmark run. */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-bench-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (await answers(port)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ port, host: '127.0.0.1' }, () => sock.write('PING\r\n'));
    sock.once('data', (d) => { sock.destroy(); resolve(d.toString().startsWith('+PONG')); });
    sock.once('error', () => resolve(false));
  });
}
