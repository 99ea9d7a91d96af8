/**
 * A private nginx for a test: the given http-context configuration (deploy/nginx.conf with ports,
 * addresses and paths replaced) inside a minimal main configuration whose pid, logs and temp files
 * live in the test's directory. Resolves when every listed port accepts connections.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import { notePid } from './redis.js';

export interface Nginx {
  stop(): Promise<void>;
}

/** nginx on PATH, or Debian's /usr/sbin/nginx (not on every user's PATH). */
export function findNginx(): string {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin']) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'nginx'), constants.X_OK);
      return join(dir, 'nginx');
    } catch {
      // not here
    }
  }
  throw new Error('nginx not found; the reverse-proxy tests need it (npm test installs it: Debian/Ubuntu package nginx)');
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startNginx(dir: string, httpConfig: string, ports: readonly number[]): Promise<Nginx> {
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp), { recursive: true });
  const main = [
    'daemon off;',
    // one process: nothing outlives a kill, and no worker runs as nobody outside the test's directory
    'master_process off;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`),
    httpConfig,
    '}',
  ].join('\n');
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, main);
  const child = spawn(findNginx(), ['-p', dir, '-c', file, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const forgetPid = notePid(child.pid);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let gone = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    gone = true;
    forgetPid();
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if ((await Promise.all(ports.map(accepts))).every(Boolean)) break;
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`nginx did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    async stop() {
      if (gone) return;
      child.kill('SIGQUIT'); // graceful: finish requests in flight
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
