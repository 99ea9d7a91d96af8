/**
 * The uWS handler of a route with a file lane (Route.fileLane: a download), GET and HEAD: the lane
 * first (callLane, as every express lane), else the generic path with the same request. The reply is
 * written with the calls the generic path makes for the same reply (respond.ts: writeHead, then
 * `tryEnd` of the whole body with its length, or for HEAD the Content-Length header and
 * `endWithoutBody`), so the bytes on the wire are the same. A body the socket does not take at once is
 * sent as the socket drains (`onWritable`), and the request counts as in flight until it is sent or
 * the client goes away.
 */
import type { HttpRequest as UwsRequest, HttpResponse } from 'uWebSockets.js';
import type { RouteMetrics } from '../observability/metrics.js';
import type { Shared } from './exchange.js';
import { callLane, type UwsHandler } from './lane.js';
import { statusLine } from './respond.js';
import type { FileLane, LaneFileReply } from './types.js';

const GET = 0; // indexes in METHODS (observability/metrics.ts)
const HEAD = 1;

export function fileLaneHandler(s: Shared, lane: FileLane, metrics: RouteMetrics, generic: UwsHandler, head: boolean): UwsHandler {
  const method = head ? HEAD : GET;
  return (res: HttpResponse, req: UwsRequest) => {
    if (s.closing) return generic(res, req);
    const started = performance.now();
    const reply = callLane(s, res, req, lane, head);
    if (reply === undefined) {
      metrics.laneMiss();
      return generic(res, req);
    }
    metrics.lane();
    if (writeReply(res, reply)) return metrics.observe(method, reply.status, (performance.now() - started) / 1000);
    // the rest of the body goes out as the socket drains
    s.inFlight++;
    let settled = false;
    const settle = (status: number): void => {
      if (settled) return;
      settled = true;
      s.inFlight--;
      metrics.observe(method, status, (performance.now() - started) / 1000);
      if (s.inFlight === 0 && s.idle !== undefined) s.idle();
    };
    const body = reply.body as Buffer;
    const offsetBefore = offsetAtHead;
    res.onAborted(() => settle(499));
    res.onWritable((offset) => {
      const [ok, done] = res.tryEnd(body.subarray(offset - offsetBefore), body.length);
      if (done) settle(reply.status);
      return ok;
    });
  };
}

/** The write offset before the body, of the reply `writeReply` wrote last. */
let offsetAtHead = 0;

/** Writes the reply; false when part of the body waits for the socket to drain. */
function writeReply(res: HttpResponse, reply: LaneFileReply): boolean {
  res.writeStatus(statusLine(reply.status));
  const { headers } = reply;
  for (let i = 0; i < headers.length; i += 2) res.writeHeader(headers[i] as string, headers[i + 1] as string);
  if (reply.contentRange !== undefined) res.writeHeader('Content-Range', reply.contentRange);
  if (reply.status === 304) {
    res.endWithoutBody();
    return true;
  }
  if (reply.body === undefined) {
    res.writeHeader('Content-Length', String(reply.length));
    res.endWithoutBody();
    return true;
  }
  offsetAtHead = res.getWriteOffset();
  return res.tryEnd(reply.body, reply.body.length)[1];
}
