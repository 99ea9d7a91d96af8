/**
 * One request/response pair on uWS. Per request: copy method, path, query and headers out of uWS
 * synchronously, attach onAborted, match, check media types and limits, then run
 * auth -> body -> handler and write the reply inside res.cork. Nothing thrown reaches uWS (an
 * exception there would end the process) and every reply is written at most once.
 */
import type { Logger } from 'pino';
import type { HttpRequest as UwsRequest, HttpResponse } from 'uWebSockets.js';
import type { Metrics, RouteMetrics } from '../observability/metrics.js';
import { METHODS } from '../observability/metrics.js';
import { StoreUnavailableError } from '../store/port.js';
import { AbortedError, BufferBody, UploadStream, type Throttle } from './body.js';
import { isCertificateHeader } from './certificate-headers.js';
import { randomUUID } from 'node:crypto';
import { errorReply, fallbackErrorJson, toErrorReply } from './errors.js';
import { withEtag } from './etag.js';
import { Linger } from './linger.js';
import { isCborContentType, isJsonContentType, negotiate, type Flavour } from './negotiate.js';
import { HttpRequest, ipText } from './request.js';
import { prepare, writeSimple, writeStream, type Prepared, type StreamState } from './respond.js';
import type { Router, RouteEntry } from './router.js';
import { SSE_HEADERS, SseConnection, type OpenFeed } from './feed.js';
import type { Feed, Principal, Reply, Route } from './types.js';

/** State shared by all exchanges of one server. */
export interface Shared {
  readonly router: Router;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly routeMetrics: Map<RouteEntry, RouteMetrics>;
  readonly unmatched: RouteMetrics;
  readonly jsonLimit: number;
  readonly uploadLimit: number;
  /** Unsent bytes a feed connection may hold (limits.eventBufferBytes). */
  readonly feedLimit: number;
  readonly trusted: ReadonlySet<string> | undefined;
  fallbackHost: string;
  closing: boolean;
  inFlight: number;
  /** Open feeds (SSE and WebSocket), ended when the server shuts down. */
  readonly feeds: Set<OpenFeed>;
  idle: (() => void) | undefined;
}

const METHOD_OF: Readonly<Record<string, string>> = { get: 'GET', head: 'HEAD', post: 'POST', put: 'PUT', delete: 'DELETE', patch: 'PATCH', options: 'OPTIONS' };
const METHOD_INDEX = new Map<string, number>(METHODS.map((m, i) => [m, i]));
const OTHER_METHOD = METHODS.length - 1;

// req.forEach without a closure per request: the callback writes into this scratch target.
let headerTarget: Record<string, string> = {};
let headerTrusted = false;
function collectHeader(key: string, value: string): void {
  // Certificate headers of the mutual-TLS proxy count only when they come from it (spec 5).
  if (!headerTrusted && isCertificateHeader(key)) return;
  const prev = headerTarget[key];
  headerTarget[key] = prev === undefined ? value : `${prev}, ${value}`;
}
function copyHeaders(req: UwsRequest, trusted: boolean): Record<string, string> {
  headerTarget = Object.create(null) as Record<string, string>;
  headerTrusted = trusted;
  req.forEach(collectHeader);
  return headerTarget;
}

export class Exchange implements Throttle {
  aborted = false;
  finished = false;
  settled = false;
  status = 0;
  methodIndex = OTHER_METHOD;
  head = false;
  /** GET or HEAD: a 200 with a reply value gets an ETag (and may become a 304). */
  conditional = false;
  flavour: Flavour = 'hal';
  entry: RouteEntry | undefined;
  request: HttpRequest | undefined;
  body: BufferBody | UploadStream | undefined;
  stream: StreamState | undefined;
  sse: SseConnection | undefined;
  /** Set while the rest of an unwanted body is read before the reply (src/http/linger.ts). */
  linger: Linger | undefined;
  /** The socket is paused by an upload's backpressure (Throttle). */
  paused = false;
  /**
   * Set by the WebSocket upgrade handler before start(): the connection is upgraded at once, and the
   * reply (a feed, or an error the socket closes with) goes here instead of onto the response.
   */
  socket: ((reply: Reply) => void) | undefined;
  readonly started = performance.now();

  constructor(
    readonly s: Shared,
    readonly res: HttpResponse,
  ) {
    s.inFlight++;
    res.onAborted(() => this.onAborted());
  }

  start(req: UwsRequest): void {
    const s = this.s;
    const lower = req.getMethod();
    const method = METHOD_OF[lower] ?? lower.toUpperCase();
    this.methodIndex = METHOD_INDEX.get(method) ?? OTHER_METHOD;
    this.head = method === 'HEAD';
    this.conditional = this.head || method === 'GET';
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const remote = new Uint8Array(this.res.getRemoteAddress().slice(0));
    const trusted = s.trusted !== undefined && s.trusted.has(ipText(remote));
    const headers = copyHeaders(req, trusted);
    this.flavour = negotiate(headers['accept']);

    const match = s.router.match(method, path);
    if (match.kind === 'not-found') return void this.finish(errorReply('ROUTE_NOT_FOUND', `No route matches ${method} ${path}`));
    if (match.kind === 'method-not-allowed') {
      return void this.finish(errorReply('METHOD_NOT_ALLOWED', `Request method ${method} is not supported here; allowed: ${match.allow}`, { Allow: match.allow }));
    }
    if (match.kind === 'bad-param') return void this.finish(errorReply('BAD_PARAMETER', `path parameter ${match.name} ${match.problem}`));

    const entry = match.entry;
    const route = entry.route;
    this.entry = entry;
    if (route.cbor === true) this.flavour = negotiate(headers['accept'], true);
    const unsafe = method !== 'GET' && method !== 'HEAD';
    if (this.flavour === 'unacceptable' && (route.produces === 'json' || (route.produces === undefined && unsafe))) {
      return void this.finish(notAcceptable(headers['accept']));
    }
    const request = new HttpRequest({
      method, path, rawQuery, headers, params: match.params, remote, fromTrustedProxy: trusted, fallbackHost: s.fallbackHost,
    });
    this.request = request;

    const bodyKind = route.body ?? (method === 'POST' || method === 'PUT' || method === 'PATCH' ? 'json' : 'none');
    let buffered: BufferBody | undefined;
    if (bodyKind !== 'none') {
      const declared = headers['content-length'];
      const length = declared === undefined ? 0 : Number(declared);
      const hasBody = length > 0 || headers['transfer-encoding'] !== undefined;
      const contentType = headers['content-type'];
      if (bodyKind === 'json' && hasBody && route.cbor === true && contentType !== undefined && isCborContentType(contentType)) {
        request.bodyFormat = 'cbor';
      } else if (bodyKind === 'json' && hasBody && (contentType === undefined || !isJsonContentType(contentType))) {
        const wanted = route.cbor === true ? 'application/json or application/cbor' : 'application/json';
        return void this.finish(errorReply('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType ?? '(none)'} is not supported; send ${wanted}`), true);
      }
      const limit = bodyKind === 'stream' ? s.uploadLimit : s.jsonLimit;
      if (length > limit) {
        return void this.finish(errorReply('PAYLOAD_TOO_LARGE', `request body of ${length} bytes exceeds the limit of ${limit} bytes`), true);
      }
      const overflow = (err: Error): void => void this.finish(this.errorToReply(err), true);
      if (bodyKind === 'stream') {
        const upload = new UploadStream(limit, this, overflow);
        this.body = upload;
        request.bodyStream = upload;
      } else {
        buffered = new BufferBody(limit, overflow);
        this.body = buffered;
      }
      const body = this.body;
      this.res.onData((chunk, isLast) => body.onData(chunk, isLast));
    }
    if (buffered === undefined && this.body === undefined) this.runNow(route, request);
    else void this.run(route, request, buffered);
  }

  /**
   * Bodiless requests: when the authenticator and the handler answer with plain values (the cached
   * DDI poll), the reply is written in this same turn without creating a promise; the first promise
   * either returns continues in `continueRun`.
   */
  runNow(route: Route, request: HttpRequest): void {
    let reply: Reply;
    try {
      if (route.auth !== undefined) {
        const principal = route.auth(request);
        if (principal instanceof Promise) return void this.continueRun(route, request, principal, undefined);
        request.principal = principal;
      }
      const out = route.handler(request);
      if (out instanceof Promise) return void this.continueRun(route, request, undefined, out);
      reply = out;
      if (this.flavour === 'unacceptable' && isValue(reply) && route.produces !== 'other') reply = notAcceptable(request.headers['accept']);
    } catch (err) {
      reply = this.aborted ? { status: 499 } : this.errorToReply(err);
    }
    void this.finish(reply);
  }

  async continueRun(
    route: Route, request: HttpRequest, principal: Promise<Principal> | undefined, pending: Promise<Reply> | undefined,
  ): Promise<void> {
    let reply: Reply;
    try {
      if (principal !== undefined) {
        request.principal = await principal;
        pending = Promise.resolve(route.handler(request));
      }
      reply = await (pending as Promise<Reply>);
      if (this.flavour === 'unacceptable' && isValue(reply) && route.produces !== 'other') reply = notAcceptable(request.headers['accept']);
    } catch (err) {
      reply = this.aborted ? { status: 499 } : this.errorToReply(err);
    }
    await this.finish(reply);
  }

  async run(route: Route, request: HttpRequest, body: BufferBody | undefined): Promise<void> {
    let reply: Reply;
    try {
      if (route.auth !== undefined) request.principal = await route.auth(request);
      if (body !== undefined) request.body = await body.promise;
      reply = await route.handler(request);
      if (this.flavour === 'unacceptable' && isValue(reply) && route.produces !== 'other') reply = notAcceptable(request.headers['accept']);
    } catch (err) {
      // After an abort nobody reads the reply; the AbortedError of the body reader is no server fault.
      reply = this.aborted ? { status: 499 } : this.errorToReply(err);
    }
    await this.finish(reply);
  }

  errorToReply(err: unknown): Reply {
    if (err instanceof StoreUnavailableError) this.s.metrics.storeError();
    return toErrorReply(err, this.s.logger, this.logContext());
  }

  /** What a log line of this request says of it. */
  logContext(): { method: string; path: string } | Record<string, never> {
    const r = this.request;
    return r === undefined ? {} : { method: r.method, path: r.path };
  }

  /**
   * Writes the reply once; later calls (a handler finishing after a 413) are ignored. Simple replies
   * are written synchronously; only a streamed body returns a promise.
   */
  finish(reply: Reply, forceClose = false): Promise<void> | undefined {
    if (this.finished) return undefined;
    this.finished = true;
    if (this.socket !== undefined) {
      this.status = reply.feed !== undefined && reply.status === 200 ? 101 : reply.status;
      this.socket(reply);
      this.settle();
      return undefined;
    }
    let streaming = false;
    try {
      if (this.aborted) return;
      if (this.entry?.route.websocket === true && reply.status < 400) {
        reply = errorReply('BAD_PARAMETER', 'this is a WebSocket endpoint: send an upgrade request (Connection: Upgrade, Upgrade: websocket)', { Upgrade: 'websocket' });
      } else if (reply.feed !== undefined && reply.status === 200) {
        streaming = this.startFeed(reply.feed, reply.headers);
        return;
      }
      // Close when part of the request body is still unread (after reading it: Linger), or while shutting down.
      const unread = forceClose || (this.body !== undefined && !this.body.complete);
      const close = unread || this.s.closing;
      let prepared: Prepared;
      try {
        prepared = prepare(reply, this.flavour);
        if (this.conditional && prepared.status === 200 && isValue(reply) && this.entry?.route.etag !== false && reply.headers?.['ETag'] === undefined) {
          prepared = withEtag(prepared, this.request?.headers['if-none-match'], this.flavour === 'cbor' ? undefined : reply.etag);
        }
      } catch (err) {
        const requestId = randomUUID();
        this.s.logger.error({ err, requestId, ...this.logContext() }, 'reply could not be serialised');
        prepared = { status: 500, headers: undefined, contentType: 'application/json', body: fallbackErrorJson(requestId), stream: undefined };
      }
      this.status = prepared.status;
      if (prepared.stream === undefined || this.head) {
        if (unread && !this.s.closing) {
          const head = this.head;
          this.linger = new Linger(this.res, this.paused, () => corkWrite(this.res, prepared, head, true));
        } else {
          corkWrite(this.res, prepared, this.head, close);
        }
        return;
      }
      streaming = true;
      return this.finishStream(prepared, close);
    } catch (err) {
      this.s.logger.error({ err }, 'writing a reply failed');
      if (!this.aborted) this.res.close();
    } finally {
      if (!streaming) this.settle();
    }
    return undefined;
  }

  /**
   * A feed as Server-Sent Events (HEAD gets the headers only). True while the exchange stays open
   * (settled when the stream ends).
   */
  startFeed(feed: Feed, headers: Readonly<Record<string, string>> | undefined): boolean {
    const res = this.res;
    this.status = 200;
    res.cork(() => {
      res.writeStatus('200 OK');
      for (const [name, value] of Object.entries({ ...SSE_HEADERS, ...headers })) res.writeHeader(name, value);
      if (this.head) res.endWithoutBody();
      else res.write(': connected\n\n');
    });
    if (this.head) return false;
    this.s.metrics.feedOpened();
    const connection = new SseConnection(res, feed, this.s.feedLimit, (why) => {
      this.s.feeds.delete(connection);
      this.s.metrics.feedEnded(why);
      this.settle();
    });
    this.sse = connection;
    if (this.s.closing) connection.close('the server is shutting down');
    else this.s.feeds.add(connection);
    return true;
  }

  async finishStream(prepared: Prepared, close: boolean): Promise<void> {
    const state: StreamState = { aborted: false, onAbort: undefined, wroteHead: false };
    this.stream = state;
    try {
      await writeStream(this.res, prepared, state, close);
    } catch (err) {
      if (this.aborted) return;
      if (state.wroteHead) {
        this.s.logger.error({ err }, 'stream body failed after the reply started; closing the connection');
        this.res.cork(() => this.res.close());
      } else {
        const failed = prepare(this.errorToReply(err), this.flavour);
        this.status = failed.status;
        corkWrite(this.res, failed, false, close);
      }
    } finally {
      this.settle();
    }
  }

  settle(): void {
    if (this.settled) return;
    this.settled = true;
    const s = this.s;
    s.inFlight--;
    const metrics = this.entry === undefined ? s.unmatched : (s.routeMetrics.get(this.entry) ?? s.unmatched);
    // 499: the client went away before an answer (nginx's convention)
    metrics.observe(this.methodIndex, this.aborted && this.status === 0 ? 499 : this.status, (performance.now() - this.started) / 1000);
    if (s.inFlight === 0 && s.idle !== undefined) s.idle();
  }

  onAborted(): void {
    this.aborted = true;
    this.request?.markAborted();
    this.body?.fail(new AbortedError());
    this.sse?.aborted();
    this.linger?.aborted();
    if (this.stream !== undefined) {
      this.stream.aborted = true;
      this.stream.onAbort?.();
    }
    if (this.finished) this.settle();
  }

  pause(): void {
    if (this.finished || this.aborted) return;
    this.paused = true;
    this.res.pause();
  }

  resume(): void {
    if (this.finished || this.aborted) return;
    this.paused = false;
    this.res.resume();
  }
}

// Module-level scratch so the common write path allocates no closure.
let corkRes: HttpResponse | undefined;
let corkPrepared: Prepared | undefined;
let corkHead = false;
let corkClose = false;
function corkedWrite(): void {
  writeSimple(corkRes as HttpResponse, corkPrepared as Prepared, corkHead, corkClose);
}
function corkWrite(res: HttpResponse, prepared: Prepared, head: boolean, close: boolean): void {
  corkRes = res;
  corkPrepared = prepared;
  corkHead = head;
  corkClose = close;
  try {
    res.cork(corkedWrite);
  } finally {
    corkRes = undefined;
    corkPrepared = undefined;
  }
}

/** The reply carries a value to serialise (as opposed to a text, bytes or a stream). */
function isValue(reply: Reply): boolean {
  return reply.json !== undefined || reply.jsonText !== undefined;
}

function notAcceptable(accept: string | undefined): Reply {
  return errorReply('NOT_ACCEPTABLE', `Accept ${accept ?? ''} allows none of application/hal+json, application/json (nor application/cbor, where offered)`);
}
