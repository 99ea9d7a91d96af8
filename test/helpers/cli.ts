/**
 * The built CLI (`dist/src/app/cli.js`, needs `npm run build`; `npm test` builds first) as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';

export const CLI = join(resolve(import.meta.dirname, '../..'), 'dist/src/app/cli.js');
export const built = existsSync(CLI);

export interface Child {
  readonly proc: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

const started: Child[] = [];
afterAll(() => {
  for (const c of started) if (c.proc.exitCode === null && c.proc.pid !== undefined) c.proc.kill('SIGKILL');
});

/** `node ...args` in `cwd`; killed after the test file if still running. */
export function run(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Child {
  const proc = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const child: Child = { proc, stdout: '', stderr: '', exited: new Promise((r) => proc.once('exit', (code) => r(code))) };
  started.push(child);
  proc.stdout?.on('data', (d: Buffer) => (child.stdout += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (child.stderr += d.toString()));
  if (options.input !== undefined) proc.stdin?.end(options.input);
  else proc.stdin?.end();
  return child;
}

/** Waits for the listening line (store `store`) and returns the URL; throws with the output when the child exits first. */
export async function listening(child: Child, store: 'memory' | 'redis' = 'memory'): Promise<string> {
  const line = new RegExp(`peregrine listening on (http://\\S+) \\(store: ${store}\\)`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const m = line.exec(child.stdout);
    if (m?.[1] !== undefined) return m[1];
    if (child.proc.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${child.stdout}\n${child.stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
