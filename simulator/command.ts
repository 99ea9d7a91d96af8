/**
 * The `run` step: a shell command the scenario runs mid-run (restart the server, cut a link), with a
 * time limit. Its output goes to the run's log, prefixed; a non-zero exit or the time limit fails the step.
 */
import { spawn } from 'node:child_process';

/** Thrown when the command failed or ran out of time. */
export class CommandError extends Error {}

export function runCommand(command: string, timeoutMs: number, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // detached: a server the command starts in the background outlives it, and a timeout kills the whole group
    const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const lines = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') log(`run: ${line}`);
    };
    child.stdout.on('data', lines);
    child.stderr.on('data', lines);
    const timer = setTimeout(() => {
      try { process.kill(-(child.pid ?? 0), 'SIGKILL'); } catch { /* gone already */ }
      reject(new CommandError(`command timed out after ${timeoutMs / 1000} s: ${command}`));
    }, timeoutMs);
    child.once('error', (e) => { clearTimeout(timer); reject(new CommandError(`command could not start: ${e.message}`)); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new CommandError(`command exited with ${code ?? signal}: ${command}`));
    });
  });
}
