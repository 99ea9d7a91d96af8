/**
 * `peregrine rollout watch <id> [--poll] [--interval MS]`: the rollout's groups as progress bars until
 * it is over (exit 0 finished, 1 stopped or failed, 1 on Ctrl-C). Each event of the rollout's stream
 * (`/rest/v1/rollouts/{id}/events`) makes it read the rollout and its groups again (reads overlap into
 * one); a server without the stream (404/501), a stream that ends, or `--poll` means reading every
 * interval instead. On a terminal the lines are redrawn in place; otherwise each changed line is
 * printed once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connectionFrom, getAll, getJson, openStream, OpsError, type Connection } from './client.js';
import type { OpsIo } from './io.js';
import { outcome, progressLines, type CountedJson, type RolloutState } from './progress.js';
import { sseEvents } from './sse.js';

export const DEFAULT_INTERVAL_MS = 1000;

export interface RolloutWatchOptions {
  readonly url?: string;
  readonly poll?: boolean;
  readonly interval?: string;
}

async function readState(conn: Connection, id: number): Promise<RolloutState> {
  const rollout = await getJson<CountedJson>(conn, `/rest/v1/rollouts/${id}`);
  const { rows } = await getAll<CountedJson>(conn, `/rest/v1/rollouts/${id}/deploygroups`, new URLSearchParams({ representation: 'full', sort: 'id:ASC' }));
  return { rollout, groups: rows };
}

/** The lines on screen: redrawn in place on a terminal, else only the lines that changed. */
class View {
  #last: readonly string[] = [];
  constructor(private readonly out: OpsIo['out']) {}

  draw(lines: readonly string[]): void {
    if (this.out.isTTY === true) {
      const up = this.#last.length > 0 ? `\x1b[${this.#last.length}A` : '';
      this.out.write(`${up}${lines.map((l) => `\x1b[2K${l}\n`).join('')}\x1b[J`);
    } else {
      const changed = lines.filter((l, i) => l !== this.#last[i]);
      if (changed.length > 0) this.out.write(`${changed.join('\n')}\n`);
    }
    this.#last = lines;
  }
}

export async function rolloutWatch(idArg: string, opts: RolloutWatchOptions, io: OpsIo, signal: AbortSignal): Promise<number> {
  if (!/^[0-9]{1,15}$/.test(idArg)) throw new OpsError(`a rollout id is a whole number, got '${idArg}'`, 2);
  const interval = opts.interval === undefined ? DEFAULT_INTERVAL_MS : Number(opts.interval);
  if (!Number.isSafeInteger(interval) || interval < 1) throw new OpsError(`--interval must be a positive number of milliseconds, got '${opts.interval}'`, 2);
  const id = Number(idArg);
  const conn = connectionFrom(opts.url, io.env);
  const view = new View(io.out);
  const show = (s: RolloutState): 0 | 1 | undefined => {
    view.draw(progressLines(s));
    return outcome(s.rollout.status);
  };
  const first = show(await readState(conn, id));
  if (first !== undefined) return first;
  if (opts.poll !== true) {
    const followed = await follow(conn, id, signal, show);
    if (typeof followed === 'number') return followed;
    if (!signal.aborted) io.err.write(`${followed === 'unavailable' ? 'live events not available' : 'live events ended'}; polling every ${interval} ms\n`);
  }
  while (!signal.aborted) {
    try {
      await sleep(interval, undefined, { signal });
    } catch {
      break; // Ctrl-C
    }
    const done = show(await readState(conn, id));
    if (done !== undefined) return done;
  }
  io.err.write('interrupted\n');
  return 1;
}

/** Follows the event stream until the rollout is over (its exit code), the stream is missing or ends, or Ctrl-C. */
async function follow(
  conn: Connection, id: number, signal: AbortSignal, show: (s: RolloutState) => 0 | 1 | undefined,
): Promise<0 | 1 | 'unavailable' | 'ended'> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  signal.addEventListener('abort', abort, { once: true });
  let result: 0 | 1 | undefined;
  let failure: Error | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  const refresh = (): void => {
    if (reading !== undefined) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        result = show(await readState(conn, id));
      } while (result === undefined && again && !stop.signal.aborted);
      if (result !== undefined) stop.abort();
    })().catch((e: unknown) => {
      failure = e instanceof Error ? e : new Error(String(e));
      stop.abort();
    }).finally(() => (reading = undefined));
  };
  try {
    const stream = await openStream(conn, `/rest/v1/rollouts/${id}/events`, stop.signal).catch((e: unknown) => {
      if (stop.signal.aborted) return 'aborted' as const; // Ctrl-C while connecting
      throw e;
    });
    if (stream === 'aborted') return 'ended';
    if (stream === 'unavailable') return 'unavailable';
    try {
      for await (const _event of sseEvents(stream)) refresh();
    } catch {
      // aborted (over, failed, Ctrl-C) or the connection broke: either way the stream is done
    }
    while (reading !== undefined) await reading;
  } finally {
    signal.removeEventListener('abort', abort);
    stop.abort();
  }
  if (failure !== undefined) throw failure;
  return result ?? 'ended';
}
