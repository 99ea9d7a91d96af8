/**
 * The events benchmark's subscribers (sse-subscribers.ts) as a child process driven over IPC: connect
 * N streams (each counted once its snapshot came), reset the counters, report, close them all.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./sse-subscribers.js', import.meta.url));

export type SubscriberCommand = { op: 'connect'; n: number } | { op: 'reset' } | { op: 'report' } | { op: 'close' };

/** What the subscribers counted since the last reset. */
export interface SubscriberReport {
  readonly op: 'report';
  /** Streams open now. */
  readonly open: number;
  /** Streams the server ended (or that failed) while they were meant to stay open. */
  readonly ended: number;
  /** Event messages (the snapshot and comments not counted). */
  readonly messages: number;
  /** Journal entries (the messages with an id), each with its lag. */
  readonly entries: number;
  readonly bytes: number;
  readonly seconds: number;
  /** The subscriber process's CPU over those seconds (cores). */
  readonly cpu: number;
  /** Delivery lag in ms -> how many entries had it. */
  readonly lag: readonly (readonly [number, number])[];
}

export type SubscriberReply =
  | { op: 'ready' } | { op: 'connected'; connected: number; ms: number } | { op: 'reset' } | { op: 'closed' } | SubscriberReport;

export interface Subscribers {
  readonly pid: number;
  /** Opens `n` streams; resolves with how many got their snapshot and how long that took. */
  connect(n: number): Promise<{ connected: number; ms: number }>;
  reset(): Promise<void>;
  report(): Promise<SubscriberReport>;
  /** Closes every stream (the process stays, idle). */
  close(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the subscriber process for the SSE stream at `url` (Basic or other `authorization`). */
export async function startSubscribers(url: string, authorization: string): Promise<Subscribers> {
  const child: ChildProcess = fork(SCRIPT, [url, authorization], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies: ((r: SubscriberReply) => void)[] = [];
  child.on('message', (r: SubscriberReply) => replies.shift()?.(r));
  await new Promise<void>((resolve, reject) => {
    replies.push(() => resolve());
    child.once('exit', (code) => reject(new Error(`the subscriber process exited with ${code}`)));
  });
  const ask = <T extends SubscriberReply['op']>(cmd: SubscriberCommand, op: T): Promise<Extract<SubscriberReply, { op: T }>> =>
    new Promise((resolve, reject) => {
      replies.push((r) => (r.op === op ? resolve(r as Extract<SubscriberReply, { op: T }>) : reject(new Error(`subscribers answered ${r.op} to ${cmd.op}`))));
      child.send(cmd);
    });
  return {
    pid: child.pid ?? 0,
    connect: async (n) => {
      const r = await ask({ op: 'connect', n }, 'connected');
      return { connected: r.connected, ms: r.ms };
    },
    reset: async () => void (await ask({ op: 'reset' }, 'reset')),
    report: () => ask({ op: 'report' }, 'report'),
    close: async () => void (await ask({ op: 'close' }, 'closed')),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await exited;
    },
  };
}
