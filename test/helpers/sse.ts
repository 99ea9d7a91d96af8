/**
 * A Server-Sent Events client for tests: reads the stream as it comes (fetch), parses events, and
 * waits for one that matches. Every wait is bounded; `close()` ends the connection.
 */
import { expect } from 'vitest';

export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly data: any;
}

export interface SseStream {
  readonly status: number;
  readonly headers: Headers;
  /** Every event so far, in order. */
  readonly events: SseEvent[];
  /** The body of a refused request (status not 200). */
  readonly text: string;
  /** Resolves with the first event (from the start of the stream) that matches, or fails after `ms`. */
  next(match: (e: SseEvent) => boolean, ms?: number, what?: string): Promise<SseEvent>;
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  if (res.status !== 200) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, events, text, next: () => Promise.reject(new Error(`no stream: ${res.status} ${text}`)), ended: Promise.resolve(), close: () => undefined };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || line === '') continue;
            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          if (fields['event'] === undefined && fields['data'] === undefined) continue;
          events.push({ id: fields['id'], event: fields['event'] ?? 'message', data: JSON.parse(fields['data'] ?? 'null') });
          for (const w of waiters) w();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      for (const w of waiters) w();
    }
  })();
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: res.status,
    headers: res.headers,
    events,
    text: '',
    ended,
    close: () => abort.abort(),
    next(match, ms = 10_000, what = 'an event') {
      return new Promise<SseEvent>((resolve, reject) => {
        const check = (): void => {
          const found = events.find(match);
          if (found !== undefined) {
            finish();
            resolve(found);
          } else if (done) {
            finish();
            reject(new Error(`stream ended before ${what}; got ${JSON.stringify(events)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no ${what} within ${ms} ms; got ${JSON.stringify(events.slice(-20))}`));
        }, ms);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Basic credentials as a header. */
export function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** The refused request's error body has this status and error code. */
export function expectRefused(s: SseStream, status: number, errorCode: string): void {
  expect(s.status, s.text).toBe(status);
  expect(JSON.parse(s.text).errorCode, s.text).toBe(errorCode);
}
