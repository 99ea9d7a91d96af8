/**
 * Writing a Reply to uWS. Everything is written inside `res.cork` (callers may be past an await).
 * HEAD gets the GET headers and Content-Length without a body. Stream bodies go out with
 * backpressure: `tryEnd` until the socket refuses, then `onWritable` resumes where it stopped.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';
import { contentTypeOf, type Flavour } from './negotiate.js';
import { serialize } from './serialize.js';
import type { Reply, StreamBody } from './types.js';

const statusLines = new Map<number, string>();

export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

/** A reply whose body is already serialised (so serialising cannot fail half-way through writing). */
export interface Prepared {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly contentType: string | undefined;
  readonly body: string | Buffer | undefined;
  readonly stream: StreamBody | undefined;
}

/** Throws when the JSON cannot be serialised (cycles, BigInt): the caller answers 500 instead. */
export function prepare(reply: Reply, flavour: Flavour): Prepared {
  if (reply.stream !== undefined) {
    return { status: reply.status, headers: reply.headers, contentType: undefined, body: undefined, stream: reply.stream };
  }
  if (reply.json !== undefined || reply.jsonText !== undefined) {
    return {
      status: reply.status, headers: reply.headers, contentType: contentTypeOf(flavour),
      body: serialize(reply.json, reply.jsonText, flavour), stream: undefined,
    };
  }
  const body = reply.body;
  const contentType = body === undefined ? undefined : typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream';
  return { status: reply.status, headers: reply.headers, contentType, body, stream: undefined };
}

function writeHead(res: HttpResponse, p: Prepared): void {
  res.writeStatus(statusLine(p.status));
  let hasType = false;
  if (p.headers !== undefined) {
    for (const name in p.headers) {
      const lower = name.toLowerCase();
      if (lower === 'content-length' || lower === 'transfer-encoding') continue; // uWS frames the body
      if (lower === 'content-type') hasType = true;
      const value = p.headers[name] as string;
      // several cookies in one reply: Set-Cookie values joined with '\n' go out as one header each
      if (lower === 'set-cookie' && value.includes('\n')) for (const cookie of value.split('\n')) res.writeHeader(name, cookie);
      else res.writeHeader(name, value);
    }
  }
  if (!hasType && p.contentType !== undefined) res.writeHeader('Content-Type', p.contentType);
}

const NO_BODY_STATUS = (status: number): boolean => status === 204 || status === 304 || (status >= 100 && status < 200);

/**
 * Writes a reply without a stream body (or any reply to HEAD). Must run inside res.cork.
 * `endWithoutBody` of the bundled uWS build takes an explicit `undefined` length for a number: it
 * announced a Content-Length of 2^63 and then waited for that body, so the next request on the
 * kept-alive connection (after any 204, 304 or HEAD) got no answer. Without closing, the length
 * therefore goes out as a header of ours and `endWithoutBody()` gets no argument at all.
 */
export function writeSimple(res: HttpResponse, p: Prepared, head: boolean, close: boolean): void {
  writeHead(res, p);
  if (NO_BODY_STATUS(p.status)) {
    if (close) res.endWithoutBody(0, true);
    else res.endWithoutBody();
  } else if (head) {
    const length = p.stream !== undefined ? p.stream.length : p.body === undefined ? 0 : Buffer.byteLength(p.body);
    if (close) {
      res.endWithoutBody(length, true); // announces the length and Connection: close; the client ends the connection
    } else {
      res.writeHeader('Content-Length', String(length));
      res.endWithoutBody();
    }
  } else {
    res.end(p.body ?? '', close);
  }
}

export interface StreamState {
  aborted: boolean;
  /** True once the status line went out: a later failure can only close the connection. */
  wroteHead: boolean;
  /** Set while waiting for the socket to drain; the server calls it on abort. */
  onAbort: (() => void) | undefined;
}

/**
 * Streams `p.stream`. The first chunk is read before anything is written, so a producer that fails
 * at once still gets a proper error reply (the promise rejects and nothing has been sent).
 * Later failures, or a producer that yields fewer bytes than announced, close the connection.
 */
export async function writeStream(res: HttpResponse, p: Prepared, state: StreamState, close: boolean): Promise<void> {
  const stream = p.stream as StreamBody;
  const total = stream.length;
  const iterator = stream.chunks()[Symbol.asyncIterator]();
  let finished = false;
  try {
    let next = total === 0 ? undefined : await iterator.next();
    if (state.aborted) return;
    let sent = 0;
    let first = true;
    do {
      let chunk = next === undefined || next.done === true ? Buffer.alloc(0) : next.value;
      if (sent + chunk.length > total) chunk = chunk.subarray(0, total - sent); // never send more than announced
      const sending = chunk;
      let ok = false;
      let done = false;
      let offset = 0;
      res.cork(() => {
        if (first) {
          writeHead(res, p);
          state.wroteHead = true;
        }
        offset = res.getWriteOffset();
        if (total === 0) {
          res.end('', close);
          done = true;
        } else {
          [ok, done] = res.tryEnd(sending, total);
        }
      });
      first = false;
      sent += chunk.length;
      if (done) {
        finished = true;
        return;
      }
      if (!ok) {
        const drained = await drain(res, sending, offset, total, state);
        if (drained === 'done') finished = true; // the chunk that drained was the last: the reply is complete
        if (drained !== 'ok') return;
      }
      if (next === undefined || next.done === true) break;
      next = await iterator.next();
      if (state.aborted) return;
    } while (sent < total);
    if (!finished && !state.aborted) res.cork(() => res.close()); // the producer came up short
  } finally {
    // always: a producer that cleans up in `finally` (closes its file) must run it, done or not
    await iterator.return?.().catch(() => undefined);
  }
}

/** 'ok': the chunk went out; 'done': and it completed the reply; 'aborted': the client went away. */
function drain(res: HttpResponse, chunk: Buffer, offsetBefore: number, total: number, state: StreamState): Promise<'ok' | 'done' | 'aborted'> {
  return new Promise((resolve) => {
    state.onAbort = () => resolve('aborted');
    res.onWritable((offset) => {
      const [ok, done] = res.tryEnd(chunk.subarray(offset - offsetBefore), total);
      if (ok || done) {
        state.onAbort = undefined;
        // Continue outside uWS's writable callback: resolving inline left the continuation
        // unrun until some other event arrived (seen with an in-process client).
        setImmediate(resolve, done ? 'done' : 'ok');
      }
      return ok;
    });
  });
}
