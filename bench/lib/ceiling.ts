import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './redis.js';
import { rssOf } from './server.js';

const SCRIPT = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));

export interface CeilingReply {
  /** Status line, e.g. `304 Not Modified`; default `200 OK`. */
  readonly status?: string;
  /** Headers besides Content-Type and Content-Length (e.g. an ETag). */
  readonly headers?: Readonly<Record<string, string>>;
  /** uWS event loops in worker threads on the same port; default 1 (the main thread). */
  readonly threads?: number;
}

/** Starts the uWS hello-world ceiling answering `body` as `contentType`, in its own process. */
export async function startCeiling(body: string | Buffer, contentType: string, reply: CeilingReply = {}) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-ceiling-'));
  const file = join(dir, 'body');
  writeFileSync(file, body);
  const args = [SCRIPT, String(port), contentType, file, reply.status ?? '200 OK', JSON.stringify(reply.headers ?? {}), String(reply.threads ?? 1)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`ceiling exited with ${code}`)));
  });
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    rss: () => rssOf(child.pid ?? 0),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
