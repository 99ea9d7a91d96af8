/**
 * The HTTP contract handlers are written against. Only src/http knows uWebSockets.js; handlers see a
 * plain copied request and return a plain reply.
 */
import type { z } from 'zod';

/** A request copied out of uWS before any await (uWS frees its request object when the callback returns). */
export interface Request {
  /** Upper case: GET, POST, ... */
  readonly method: string;
  /** The path as received, without query string (percent-encoding kept). */
  readonly path: string;
  /** The raw query string, without the leading '?'. */
  readonly rawQuery: string;
  /** Parsed query parameters (first value wins for `get`). */
  readonly query: URLSearchParams;
  /**
   * Header names in lower case; repeated headers joined with ', '. X-Ssl-* headers (client
   * certificate of a mutual-TLS proxy) are present only when `fromTrustedProxy` is true.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  /** Peer address as text (the proxy's address when behind one). */
  readonly remoteAddress: string;
  /** True when the peer is one of the configured trusted proxies (forwarded headers are honoured). */
  readonly fromTrustedProxy: boolean;
  /** scheme://host[:port] the client used, from X-Forwarded-* when the peer is trusted. */
  readonly baseUrl: string;
  /** The whole body, for routes with `body: 'buffer'` or `'json'` (read up to the body limit). */
  readonly body: Buffer | undefined;
  /** How a `json` body is encoded: 'cbor' only on routes with `cbor: true` sent as application/cbor. */
  readonly bodyFormat: 'json' | 'cbor';
  /** The body as a stream, for routes with `body: 'stream'` (uploads). Backpressure is handled. */
  readonly bodyStream: AsyncIterable<Buffer> | undefined;
  /** Who the authenticator of the route said this is; undefined on routes without auth. */
  readonly principal: Principal | undefined;
  /**
   * Per-request data a route's authenticator hands to its handler (the DDI device it resolved).
   * A plain field rather than a side table, so the hot path adds no WeakMap entry per request.
   */
  locals: unknown;
  /** Set by the server when the client went away; long handlers may check it. */
  readonly signal: AbortSignal;
}

export interface MgmtPrincipal {
  readonly kind: 'mgmt';
  readonly tenant: string;
  readonly username: string;
  readonly permissions: ReadonlySet<string>;
}

export interface DdiPrincipal {
  readonly kind: 'ddi';
  readonly tenant: string;
  /** How the device authenticated. */
  readonly mode: 'targettoken' | 'gatewaytoken' | 'anonymous' | 'certificate';
}

export type Principal = MgmtPrincipal | DdiPrincipal;

/** A body produced piece by piece (artifact downloads). The server writes it with backpressure. */
export interface StreamBody {
  /** Exact byte count that will be produced. */
  readonly length: number;
  readonly chunks: () => AsyncIterable<Buffer>;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The reply value: serialised as JSON (application/hal+json or application/json, as negotiated;
   * null properties are left out as hawkBit's NON_NULL models do, see `keepNulls`), or as CBOR
   * on routes with `cbor: true` when asked for. A 200 to GET/HEAD carries an ETag and becomes a
   * 304 when If-None-Match names it.
   */
  readonly json?: unknown;
  /** Like `json`, already serialised as JSON text (the poll builds its body as a string). */
  readonly jsonText?: string;
  /**
   * The ETag of `jsonText` as `etagOf` computes it, when the handler has it already (the poll keeps
   * it with its memoised reply): JSON replies then skip hashing their body. CBOR replies ignore it.
   */
  readonly etag?: string;
  /** Sent as is; set Content-Type in headers. */
  readonly body?: string | Buffer;
  readonly stream?: StreamBody;
  /**
   * A long-lived stream of messages (live events): Server-Sent Events on a plain GET, WebSocket
   * messages on a route with `websocket: true`. The status must be 200.
   */
  readonly feed?: Feed;
}

export type Handler = (req: Request) => Reply | Promise<Reply>;

/** Decides who the caller is, or throws AppError('UNAUTHORIZED' | 'INSUFFICIENT_PERMISSION'). */
export type Authenticator = (req: Request) => Principal | Promise<Principal>;

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Pattern with `:name` segments, e.g. /rest/v1/targets/:targetId/actions/:actionId */
  readonly path: string;
  readonly handler: Handler;
  /**
   * none (default for GET/DELETE): body ignored; json (default for POST/PUT): Content-Type must be JSON,
   * body read up to the JSON limit; buffer: any content type, read up to the JSON limit;
   * stream: delivered as `bodyStream` (uploads), up to the upload limit.
   */
  readonly body?: 'none' | 'json' | 'buffer' | 'stream';
  readonly auth?: Authenticator;
  /**
   * What the route answers, for the Accept check (406). 'json': checked before the handler runs;
   * 'other' (downloads, empty replies): never checked. Unset: checked before the handler for
   * POST/PUT/PATCH/DELETE, and for GET/HEAD after it, only when the reply carries `json`.
   */
  readonly produces?: 'json' | 'other';
  /**
   * The route speaks CBOR too (the DDI API, as hawkBit's): `application/cbor` bodies are read
   * into the same values as JSON, and `Accept: application/cbor` gets the reply in CBOR.
   */
  readonly cbor?: boolean;
  /** false: no ETag on this route's replies (hawkBit's ETag filter skips `.../artifacts/**` of DDI). */
  readonly etag?: boolean;
  /** Name used in metrics labels; defaults to the path pattern. */
  readonly name?: string;
  /**
   * An express lane for the route's common case (GET only): tried first, on uWebSockets.js's own
   * router, before anything of the generic path runs. It answers from what it has at hand or returns
   * undefined, and the request takes the generic path as if the lane did not exist. Everything the
   * generic path would do for the same request (authentication, limits, negotiation, ETag/304,
   * metrics) must come out the same: a lane only skips the work, never a rule.
   */
  readonly lane?: Lane;
  /**
   * An express lane that answers with bytes (a download), for GET and HEAD: as `lane`, it answers the
   * common case from what it has at hand or returns undefined for the generic path (src/http/file-lane.ts).
   */
  readonly fileLane?: FileLane;
  /**
   * The route is a WebSocket endpoint: an upgrade request is upgraded at once, then runs auth and
   * handler like any GET; a reply with a `feed` streams on the socket, any other reply closes it with
   * 4000 + its status and its message. A GET that asks for no upgrade is refused (400).
   */
  readonly websocket?: boolean;
  /**
   * What the OpenAPI document (src/apidoc) says of the route beyond its method, path and auth;
   * `false` leaves it out of the document on purpose (static files of the console).
   */
  readonly doc?: RouteDoc | false;
}

/**
 * A route's part of the OpenAPI document. `body` is the very schema the handler validates with, so
 * the document cannot drift from what the server accepts; tags default to the path's resource.
 */
export interface RouteDoc {
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  /** The JSON request body, as the handler reads it (readBody / readJson). */
  readonly body?: z.ZodType;
  /** The body may be left out (hawkBit's `@RequestBody(required = false)`). */
  readonly bodyOptional?: boolean;
  /** A paged Management list: offset, limit, sort and q; 'full' adds representation. */
  readonly list?: true | 'full';
  /** Query parameters beside the list ones. */
  readonly query?: readonly QueryDoc[];
  /** The success reply: a schema (200), or a status with its schema (none: an empty reply). */
  readonly response?: z.ZodType | ResponseDoc;
}

export interface QueryDoc {
  readonly name: string;
  readonly description?: string;
  /** Allowed values, when fixed. */
  readonly values?: readonly string[];
  readonly type?: 'string' | 'integer' | 'boolean';
}

export interface ResponseDoc {
  readonly status: number;
  readonly schema?: z.ZodType;
  /** Default application/hal+json for a schema. */
  readonly contentType?: string;
}

/**
 * What a lane reads, synchronously and only what it asks for: headers and the peer address cost a
 * copy out of uWS each, so a lane reads them as it needs them. Not valid after the lane returns.
 */
export interface LaneRequest {
  /** The route's path parameters in order, as received (still percent-encoded). */
  param(index: number): string;
  /** A header by its name made once with `laneHeader`; '' when absent. */
  header(name: LaneHeader): string;
  /** The raw query string (after `?`, still percent-encoded); '' when there is none. */
  query(): string;
  /** The peer's IPv4 address as a 32-bit number, or -1 for IPv6 (then the lane leaves the request alone). */
  ipv4(): number;
  /** The peer is one of `server.trustedProxies`: forwarded headers count (see Request). */
  readonly fromTrustedProxy: boolean;
  /** As Request.baseUrl. */
  baseUrl(): string;
  /** The path as received (Request.path). */
  url(): string;
  /** Every header, lower-case name and value, in the order received (repeats included; '' values too). */
  forEachHeader(visit: (name: string, value: string) => void): void;
}

/** A lower-case header name as bytes, encoded once (laneHeader in lane.ts): no conversion per read. */
export type LaneHeader = ArrayBuffer & { readonly laneHeader: unique symbol };

/** A lane's answer: 200 with the body, or 304 (If-None-Match named `etag`). */
export interface LaneReply {
  readonly status: 200 | 304;
  readonly etag: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export type Lane = (req: LaneRequest) => LaneReply | undefined;

/**
 * A file lane's answer: the status and headers (name, value, name, value...) as the generic path writes
 * them, then `contentRange` when set; the body is `body` (sent as is, with backpressure), or for HEAD and
 * 304 none, a HEAD announcing `length`.
 */
export interface LaneFileReply {
  readonly status: 200 | 206 | 304;
  readonly headers: readonly string[];
  readonly contentRange: string | undefined;
  readonly body: Buffer | undefined;
  readonly length: number;
}

export type FileLane = (req: LaneRequest, head: boolean) => LaneFileReply | undefined;

/** One message of a feed: an SSE event (`id:`, `event:`, `data:`), or `{id, event, data}` in a WebSocket message's array. */
export interface FeedMessage {
  /** The position to resume after (SSE `Last-Event-ID`); absent on messages that are no resume point. */
  readonly id?: string;
  readonly event: string;
  /** JSON text. */
  readonly data: string;
}

/** Where a feed writes; the transport bounds what it buffers per connection. */
export interface FeedSink {
  /**
   * Sends a batch (SSE: its events; WebSocket: one message holding them as an array). False when the
   * connection is gone or was dropped for reading too slowly (nothing more will be sent). Hand every
   * subscriber the same array: its wire form is made once per array.
   */
  send(messages: readonly FeedMessage[]): boolean;
  /** Ends the stream, telling the client why. */
  end(reason: string): void;
}

export interface Feed {
  /** Called once the connection is ready; returns what stops the feed (called once, when the connection ends for any reason). */
  start(sink: FeedSink): () => void;
}
