import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './redis.js';
import { rssOf } from './server.js';

const SCRIPT = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));

/** Starts the uWS hello-world ceiling answering `body` as `contentType`, in its own process. */
export async function startCeiling(body: string | Buffer, contentType: string) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-ceiling-'));
  const file = join(dir, 'body');
  writeFileSync(file, body);
  const child = spawn(process.execPath, [SCRIPT, String(port), contentType, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`ceiling exited with ${code}`)));
  });
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    rss: () => rssOf(child.pid ?? 0),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
