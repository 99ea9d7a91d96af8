/**
 * A process and everything under it, for start scripts that run their server as a child (RabbitMQ's
 * runs the Erlang VM and traps SIGTERM): SIGKILL on the script alone leaves the server running,
 * holding its ports and CPU, with no parent. Linux only (/proc children); elsewhere just the process.
 */
import { readFileSync } from 'node:fs';

/** SIGKILL for `pid` and all its descendants, the deepest first. */
export function killProcessTree(pid: number): void {
  const pids: number[] = [];
  const visit = (p: number): void => {
    pids.push(p);
    let children = '';
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8');
    } catch {
      return; // gone, or no /proc
    }
    for (const child of children.split(' ')) if (child.trim() !== '') visit(Number(child));
  };
  visit(pid);
  for (const p of pids.reverse()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
