/**
 * Express lanes (Route.lane): a route's common case answered on uWebSockets.js's own router, before
 * the generic path copies the request (all headers, the peer address, a request object), matches it
 * in the segment trie and negotiates. The lane reads only what it asks for; when it returns nothing,
 * or throws, or the server is closing, the request takes the generic path untouched. Behind a trusted
 * proxy the lane sees the forwarded headers as the generic path does (baseUrl). Replies are written here as
 * the generic path writes them (status, ETag, Content-Type, body; 304 without a body) and counted in
 * the route's metrics.
 */
import type { HttpRequest as UwsRequest, HttpResponse } from 'uWebSockets.js';
import type { RouteMetrics } from '../observability/metrics.js';
import type { Shared } from './exchange.js';
import { baseUrlOf, ipText, ipv4Offset } from './request.js';
import { statusLine } from './respond.js';
import type { Lane, LaneHeader, LaneRequest } from './types.js';

/** A header name for LaneRequest.header (uWS compares the bytes as given: lower case). */
export function laneHeader(name: string): LaneHeader {
  const bytes = Buffer.from(name.toLowerCase(), 'latin1');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as LaneHeader;
}

const GET = 0; // index of GET in METHODS (observability/metrics.ts)
const OK = statusLine(200);
const NOT_MODIFIED = statusLine(304);

/** One adapter for all lanes: it only lives during a synchronous lane call. */
class UwsLaneRequest implements LaneRequest {
  req: UwsRequest | undefined;
  res: HttpResponse | undefined;
  fromTrustedProxy = false;
  fallbackHost = '';
  /** The peer's address bytes, once read. */
  peer: Uint8Array | undefined;

  param(index: number): string {
    return (this.req as UwsRequest).getParameter(index);
  }

  header(name: LaneHeader): string {
    return (this.req as UwsRequest).getHeader(name);
  }

  query(): string {
    return (this.req as UwsRequest).getQuery() ?? '';
  }

  ipv4(): number {
    const b = (this.peer ??= new Uint8Array((this.res as HttpResponse).getRemoteAddress()));
    const at = ipv4Offset(b);
    if (at < 0) return -1;
    return ((b[at] as number) * 0x1000000) + (((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number));
  }

  url(): string {
    return (this.req as UwsRequest).getUrl();
  }

  forEachHeader(visit: (name: string, value: string) => void): void {
    (this.req as UwsRequest).forEach(visit);
  }

  baseUrl(): string {
    const headers: Record<string, string> = {};
    for (const [name, bytes] of BASE_URL_HEADERS) {
      const value = this.header(bytes);
      if (value !== '') headers[name] = value;
    }
    return baseUrlOf(headers, this.fromTrustedProxy, this.fallbackHost);
  }
}
const adapter = new UwsLaneRequest();
const BASE_URL_HEADERS = ['host', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port'].map((n) => [n, laneHeader(n)] as const);

export type UwsHandler = (res: HttpResponse, req: UwsRequest) => void;

/**
 * Runs `lane` on the request with `arg` (the adapter only lives during this call): its answer, or
 * undefined when it has none or throws (logged); then the request takes the generic path.
 */
export function callLane<A, R>(
  s: Shared, res: HttpResponse, req: UwsRequest, lane: (r: LaneRequest, arg: A) => R | undefined, arg: A,
): R | undefined {
  adapter.req = req;
  adapter.res = res;
  adapter.peer = undefined;
  adapter.fallbackHost = s.fallbackHost;
  adapter.fromTrustedProxy = false;
  if (s.trusted !== undefined) {
    adapter.peer = new Uint8Array(res.getRemoteAddress());
    adapter.fromTrustedProxy = s.trusted.has(ipText(adapter.peer));
  }
  try {
    return lane(adapter, arg);
  } catch (err) {
    s.logger.error({ err }, 'an express lane failed; the request takes the generic path');
    return undefined;
  } finally {
    adapter.req = undefined;
    adapter.res = undefined;
  }
}

/** The uWS handler of a route with a lane: the lane first, else `generic` with the same request. */
export function laneHandler(s: Shared, lane: Lane, metrics: RouteMetrics, generic: UwsHandler): UwsHandler {
  return (res, req) => {
    if (s.closing) return generic(res, req);
    const started = performance.now();
    const reply = callLane(s, res, req, lane, undefined);
    if (reply === undefined) {
      metrics.laneMiss();
      return generic(res, req);
    }
    if (reply.status === 200) {
      res.writeStatus(OK);
      res.writeHeader('ETag', reply.etag);
      res.writeHeader('Content-Type', reply.contentType);
      res.end(reply.body);
    } else {
      res.writeStatus(NOT_MODIFIED);
      res.writeHeader('ETag', reply.etag);
      res.endWithoutBody();
    }
    metrics.observe(GET, reply.status, (performance.now() - started) / 1000);
    metrics.lane();
  };
}
