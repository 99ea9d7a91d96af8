/**
 * The uWebSockets.js adapter: one App, one catch-all handler, dispatch through the segment trie
 * (src/http/router.ts); each request is an Exchange (src/http/exchange.ts).
 */
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import type { HttpRequest as UwsRequest, HttpResponse, TemplatedApp, us_listen_socket, WebSocketBehavior } from 'uWebSockets.js';
import type { Config } from '../config/index.js';
import type { Metrics, RouteMetrics } from '../observability/metrics.js';
import { Exchange, type Shared } from './exchange.js';
import { WsConnection, type FeedSocketData } from './feed.js';
import { fileLaneHandler } from './file-lane.js';
import { laneHandler } from './lane.js';
import { normalizeIp } from './request.js';
import { Router, type RouteEntry } from './router.js';
import type { Reply, Route } from './types.js';
import { loadUws } from './uws.js';

export interface HttpServerOptions {
  readonly config: Config;
  readonly routes: readonly Route[];
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** See ListenOptions; default true. Worker threads of one server (src/workers.ts) pass false. */
  readonly exclusive?: boolean;
}

export interface HttpServer {
  readonly port: number;
  /** http://host:port with the configured host (0.0.0.0 stays as it is). */
  readonly url: string;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  /** Stops accepting connections, waits up to graceMs for in-flight requests, then closes all sockets. */
  close(graceMs?: number): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { config, routes, logger, metrics } = options;
  const uws = loadUws();
  const router = new Router();
  const routeMetrics = new Map<RouteEntry, RouteMetrics>();
  for (const route of routes) {
    const entry = router.add(route);
    routeMetrics.set(entry, metrics.forRoute(entry.name));
  }
  const trustedList = config.server.trustedProxies.map((ip) => normalizeIp(ip) ?? ip);
  const s: Shared = {
    router,
    logger,
    metrics,
    routeMetrics,
    unmatched: metrics.forRoute('unmatched'),
    jsonLimit: config.limits.jsonBodyBytes,
    uploadLimit: config.limits.uploadBytes,
    feedLimit: config.limits.eventBufferBytes,
    trusted: trustedList.length === 0 ? undefined : new Set(trustedList),
    fallbackHost: '',
    closing: false,
    inFlight: 0,
    feeds: new Set(),
    idle: undefined,
  };

  const app = uws.App();
  const generic = (res: HttpResponse, req: UwsRequest): void => {
    const exchange = new Exchange(s, res);
    try {
      exchange.start(req);
    } catch (err) {
      void exchange.finish(exchange.errorToReply(err), true);
    }
  };
  for (const route of routes) {
    if (route.lane !== undefined) app.get(route.path, laneHandler(s, route.lane, metrics.forRoute(route.name ?? route.path), generic));
    if (route.fileLane !== undefined) {
      const laneMetrics = metrics.forRoute(route.name ?? route.path);
      app.get(route.path, fileLaneHandler(s, route.fileLane, laneMetrics, generic, false));
      app.head(route.path, fileLaneHandler(s, route.fileLane, laneMetrics, generic, true));
    }
    if (route.websocket === true) app.ws<FeedSocketData>(route.path, feedSocket(s));
  }
  app.any('/*', generic);

  const { host, port: wanted } = config.server;
  const listenSocket = await listen(app, host, wanted, { exclusive: options.exclusive ?? true }).catch((err: unknown) => {
    app.close(); // a worker thread must not end with a uWS handle open (Node aborts the process)
    throw err;
  });
  const port = uws.us_socket_local_port(listenSocket);
  const hostText = host.includes(':') ? `[${host}]` : host;
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : hostText;
  s.fallbackHost = `${local}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://${hostText}:${port}`,
    get inFlight() {
      return s.inFlight;
    },
    close(graceMs = 10_000) {
      closing ??= (async () => {
        s.closing = true;
        uws.us_listen_socket_close(listenSocket);
        for (const feed of [...s.feeds]) feed.close('the server is shutting down');
        if (s.inFlight > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, graceMs);
            s.idle = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          if (s.inFlight > 0) logger.warn({ inFlight: s.inFlight }, 'grace period over; closing connections with requests in flight');
        }
        app.close(); // also ends idle keep-alive connections
      })();
      return closing;
    },
  };
}

/**
 * A WebSocket route: the connection is upgraded in uWS's upgrade handler, at once; the request then
 * goes through the generic path (match, auth, handler) like a GET, and its reply reaches the socket:
 * a feed starts, any other reply closes it with 4000 + the HTTP status and the error message
 * (WsConnection). Upgrading later, from a promise, is what uWS's async-upgrade example does, but the
 * uWS build peregrine loads can then close the new socket right after open (uWebSockets #1929: its
 * cork() misses an upgrade that kept the socket's address), so no reply is awaited before the 101.
 * A GET without a handshake is answered as HTTP (400 naming the upgrade). Messages from the client
 * are ignored; uWS answers pings and drops idle sockets.
 */
function feedSocket(s: Shared): WebSocketBehavior<FeedSocketData> {
  return {
    maxPayloadLength: 16 * 1024,
    // the feed drops a slow consumer itself, with a close reason; uWS's own limit sits above that
    maxBackpressure: 4 * s.feedLimit,
    closeOnBackpressureLimit: 0,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const exchange = new Exchange(s, res);
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      let data: FeedSocketData | undefined;
      if (key !== '') data = { reply: new Promise<Reply>((resolve) => void (exchange.socket = resolve)) };
      try {
        exchange.start(req);
      } catch (err) {
        void exchange.finish(exchange.errorToReply(err), true);
      }
      if (data !== undefined) res.upgrade(data, key, protocol, extensions, context);
    },
    open: (ws) => {
      const connection = new WsConnection(ws, ws.getUserData().reply, s.feedLimit, {
        started: () => {
          s.metrics.feedOpened();
          s.feeds.add(connection);
        },
        ended: (why) => {
          s.feeds.delete(connection);
          s.metrics.feedEnded(why);
        },
      });
      ws.getUserData().connection = connection;
      if (s.closing) connection.close('the server is shutting down');
    },
    close: (ws) => {
      ws.getUserData().connection?.closed();
    },
  };
}

/** LIBUS_LISTEN_EXCLUSIVE_PORT of uSockets (the typings declare the enum, the binding exports no value for it). */
const LISTEN_EXCLUSIVE_PORT = 1;

export interface ListenOptions {
  /**
   * True: refuse a port another socket holds, and keep others off it. uSockets otherwise sets
   * SO_REUSEPORT, so a second server (with the memory store, a second copy of all data) would
   * silently share the port. Only workers of one server that share the port on purpose pass false.
   */
  readonly exclusive: boolean;
}

/** Listens on host:port; rejects with a message that says why (in use, not available, not permitted). */
export async function listen(app: TemplatedApp, host: string, port: number, options: ListenOptions): Promise<us_listen_socket> {
  const socket = await new Promise<us_listen_socket | false>((resolve) => {
    // (host, port, options, cb) is supported by the binding though the typings list only (port, options, cb)
    type Listen = (h: string, p: number, o: number, cb: (s: us_listen_socket | false) => void) => void;
    const listenWith = app.listen.bind(app) as unknown as Listen;
    listenWith(host, port, options.exclusive ? LISTEN_EXCLUSIVE_PORT : 0, resolve);
  });
  if (socket !== false) return socket;
  throw new Error(`cannot listen on ${host}:${port}: ${await whyNotListening(host, port)}`);
}

const PORT_IN_USE = 'the port is already in use (is another peregrine running?). Stop that process or set server.port / PEREGRINE_PORT to a free port';

/** The error of a listen refused because the port is taken (also when another peregrine holds its lock: src/port-lock.ts). */
export function portInUse(host: string, port: number): Error {
  return new Error(`cannot listen on ${host}:${port}: ${PORT_IN_USE}`);
}

/** uWS reports only "false": ask the OS the same question through node:net to name the reason. */
async function whyNotListening(host: string, port: number): Promise<string> {
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
  switch (code) {
    case 'EADDRINUSE':
      return PORT_IN_USE;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this host; set server.host / PEREGRINE_HOST`;
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges); choose a port of 1024 or above';
    default:
      return code === undefined ? 'the address is in use or not available' : `the address is not available (${code})`;
  }
}
