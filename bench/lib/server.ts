import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './redis.js';

const CLI = fileURLToPath(new URL('../../src/app/cli.js', import.meta.url));

/** The Node.js flags `npm start` runs the server with (package.json), so the benchmarks run it the same way. */
export const START_FLAGS: readonly string[] = (() => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  const flags: string[] = [];
  for (const word of words.slice(words.indexOf('node') + 1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
})();

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** Resident memory of the server process (bytes), read from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

/**
 * The real server (built JS) as a child process with the given config.yaml text (port and data dir
 * are filled in), started the way `npm start` starts it (its Node.js flags, START_FLAGS) plus `nodeArgs` (e.g. --cpu-prof).
 * Resolves when it printed its listening line.
 */
export async function startServer(
  configYaml: string, env: Record<string, string> = {}, nodeArgs: readonly string[] = [],
): Promise<BenchServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-bench-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, configYaml);
  const child: ChildProcess = spawn(process.execPath, [...START_FLAGS, ...nodeArgs, CLI, 'serve', '--config', config], {
    env: { ...process.env, PEREGRINE_PORT: String(port), PEREGRINE_HOST: '127.0.0.1', PEREGRINE_DATA_DIR: join(dir, 'data'), PEREGRINE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (/listening on/.test(out)) { clearTimeout(timer); resolve(); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}: ${out}`)); });
  });
  child.stdout?.resume();
  const pid = child.pid ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    rss: () => rssOf(pid),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}
