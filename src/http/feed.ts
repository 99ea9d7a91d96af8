/**
 * Feeds (Reply.feed) on uWS: Server-Sent Events on an HTTP response, or messages on a WebSocket.
 * Each connection buffers at most `limits.eventBufferBytes` that the client has not taken yet; a client that
 * reads slower than the feed produces is dropped (its stream ends with a reason where the transport
 * can still say one), so one stalled reader never grows the server's memory.
 */
import type { HttpResponse, WebSocket } from 'uWebSockets.js';
import type { Feed, FeedMessage, FeedSink, Reply } from './types.js';

/** An SSE comment this often keeps proxies and clients from timing the stream out. */
const HEARTBEAT_MS = 15_000;

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  // nginx passes the stream through unbuffered
  'X-Accel-Buffering': 'no',
});

/** One message as an SSE event. `data` is JSON text, so it holds no line break. */
export function sseText(m: FeedMessage): string {
  return m.id === undefined ? `event: ${m.event}\ndata: ${m.data}\n\n` : `id: ${m.id}\nevent: ${m.event}\ndata: ${m.data}\n\n`;
}

/** One message as an element of a WebSocket message. */
function wsItem(m: FeedMessage): string {
  return m.id === undefined ? `{"event":${JSON.stringify(m.event)},"data":${m.data}}` : `{"id":${JSON.stringify(m.id)},"event":${JSON.stringify(m.event)},"data":${m.data}}`;
}

/**
 * The wire form of a batch, made once per batch and transport: a feed hands the same array to all
 * its subscribers (1,000 browsers on one rollout cost one serialisation and 1,000 writes of one buffer).
 */
const sseForm = new WeakMap<readonly FeedMessage[], Buffer>();
const wsForm = new WeakMap<readonly FeedMessage[], Buffer>();

function sseBytes(messages: readonly FeedMessage[]): Buffer {
  let bytes = sseForm.get(messages);
  if (bytes === undefined) sseForm.set(messages, (bytes = Buffer.from(messages.map(sseText).join(''))));
  return bytes;
}

/** A batch is one WebSocket text message: a JSON array of `{id?, event, data}`. */
function wsBytes(messages: readonly FeedMessage[]): Buffer {
  let bytes = wsForm.get(messages);
  if (bytes === undefined) wsForm.set(messages, (bytes = Buffer.from(`[${messages.map(wsItem).join(',')}]`)));
  return bytes;
}

/** A running feed: `close` ends it from the server's side (shutdown). */
export interface OpenFeed {
  close(reason: string): void;
}

/**
 * Streams `feed` as SSE on `res`, whose status and headers were written already (inside a cork).
 * `ended` runs once when the stream ends, whoever ends it.
 */
export class SseConnection implements FeedSink, OpenFeed {
  #done = false;
  #backlog = 0;
  #waiting = false;
  readonly #heartbeat: NodeJS.Timeout;
  #stop: (() => void) | undefined;

  constructor(
    private readonly res: HttpResponse,
    feed: Feed,
    private readonly limit: number,
    private readonly ended: (why: 'client' | 'server' | 'slow') => void,
  ) {
    this.#heartbeat = setInterval(() => this.#write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.#heartbeat.unref();
    this.#stop = startFeed(feed, this, () => this.#done);
  }

  send(messages: readonly FeedMessage[]): boolean {
    if (this.#done) return false;
    return messages.length === 0 || this.#write(sseBytes(messages));
  }

  end(reason: string): void {
    if (this.#done) return;
    this.#finish('server');
    this.res.cork(() => this.res.end(`event: close\ndata: ${JSON.stringify({ reason })}\n\n`));
  }

  close(reason: string): void {
    this.end(reason);
  }

  /** The client went away (onAborted). */
  aborted(): void {
    this.#finish('client');
  }

  #write(bytes: string | Buffer): boolean {
    if (this.#done) return false;
    let ok = false;
    this.res.cork(() => {
      ok = this.res.write(bytes);
    });
    if (ok) return true;
    this.#backlog += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    if (this.#backlog > this.limit) {
      // the close reason could only queue behind what the client does not read: close at once
      // (finished first: closing aborts the response, which would count as the client leaving)
      this.#finish('slow');
      this.res.cork(() => this.res.close());
      return false;
    }
    if (!this.#waiting) {
      this.#waiting = true;
      this.res.onWritable(() => {
        this.#waiting = false;
        this.#backlog = 0;
        return true;
      });
    }
    return true;
  }

  #finish(why: 'client' | 'server' | 'slow'): void {
    if (this.#done) return;
    this.#done = true;
    clearInterval(this.#heartbeat);
    try {
      this.#stop?.();
    } finally {
      this.ended(why);
    }
  }
}

/** Starts a feed; when it ended the connection while starting, stops it at once (no subscription left behind). */
function startFeed(feed: Feed, sink: FeedSink, ended: () => boolean): (() => void) | undefined {
  const stop = feed.start(sink);
  if (!ended()) return stop;
  stop();
  return undefined;
}

/** What a WebSocket carries from its upgrade to its open handler, and back to close. */
export interface FeedSocketData {
  /** The upgrade request's reply, once its handler gave one. */
  readonly reply: Promise<Reply>;
  connection?: WsConnection;
}

/** WebSocket close codes: 1001 going away (shutdown), 1000 normal; 4008 is ours for "slow consumer" (1008 is policy). */
const WS_NORMAL = 1000;
const WS_SLOW = 4008;
/** A refused request closes with 4000 + its HTTP status (4401, 4403, 4404, ...), as several WebSocket APIs do. */
const WS_REFUSED_BASE = 4000;
/** A close frame's reason holds at most 123 bytes. */
const REASON_BYTES = 123;

export interface WsEvents {
  /** The reply was a feed and it started. */
  started(): void;
  /** The feed ended, whoever ended it (only after `started`). */
  ended(why: 'client' | 'server' | 'slow'): void;
}

/**
 * A feed on a WebSocket that was upgraded before its request was answered: when the reply comes, a
 * feed starts, and any other reply closes the socket with 4000 + its status and its message.
 */
export class WsConnection implements FeedSink, OpenFeed {
  #done = false;
  #started = false;
  #stop: (() => void) | undefined;

  constructor(
    private readonly ws: WebSocket<FeedSocketData>,
    reply: Promise<Reply>,
    private readonly limit: number,
    private readonly events: WsEvents,
  ) {
    void reply.then((r) => this.#begin(r));
  }

  send(messages: readonly FeedMessage[]): boolean {
    if (this.#done) return false;
    if (messages.length === 0) return true;
    // the hub delivers from a timer, outside any uWS callback: cork as for HTTP writes
    this.ws.cork(() => this.ws.send(wsBytes(messages), false));
    if (this.ws.getBufferedAmount() > this.limit) {
      this.#close(WS_SLOW, 'slow consumer: the client did not read its events', 'slow');
      return false;
    }
    return true;
  }

  end(reason: string): void {
    this.#close(WS_NORMAL, reason, 'server');
  }

  close(reason: string): void {
    this.#close(1001, reason, 'server');
  }

  /** The socket closed (uWS close handler): nothing may touch it any more. */
  closed(): void {
    this.#finish('client');
  }

  #begin(reply: Reply): void {
    if (this.#done) return;
    if (reply.feed !== undefined && reply.status === 200) {
      this.#started = true;
      this.events.started();
      this.#stop = startFeed(reply.feed, this, () => this.#done);
      return;
    }
    this.#close(WS_REFUSED_BASE + reply.status, messageOf(reply), 'server');
  }

  #close(code: number, reason: string, why: 'server' | 'slow'): void {
    if (this.#done) return;
    this.#finish(why);
    this.ws.cork(() => this.ws.end(code, clip(reason)));
  }

  #finish(why: 'client' | 'server' | 'slow'): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#stop?.();
    } finally {
      if (this.#started) this.events.ended(why);
    }
  }
}

/** The message of an error reply (the error body's `message`), else its status. */
function messageOf(reply: Reply): string {
  const body = reply.json as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : `HTTP ${reply.status}`;
}

/** At most REASON_BYTES of UTF-8, cut at a character boundary. */
function clip(reason: string): string {
  if (Buffer.byteLength(reason) <= REASON_BYTES) return reason;
  let out = '';
  for (const ch of reason) {
    if (Buffer.byteLength(out + ch) > REASON_BYTES - 3) break;
    out += ch;
  }
  return `${out}...`;
}
