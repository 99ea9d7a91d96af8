/**
 * The request handlers see: every field copied out of uWS before the callback returns. The query,
 * base URL, peer address text and abort signal are computed on first use, because the poll hot
 * path rarely needs them.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Principal, Request } from './types.js';

export interface RequestInit {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly headers: Record<string, string>;
  readonly params: Readonly<Record<string, string>>;
  readonly remote: Uint8Array;
  readonly fromTrustedProxy: boolean;
  /** host[:port] to use when the request has no usable Host header. */
  readonly fallbackHost: string;
}

export class HttpRequest implements Request {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly params: Readonly<Record<string, string>>;
  readonly fromTrustedProxy: boolean;
  body: Buffer | undefined = undefined;
  bodyFormat: 'json' | 'cbor' = 'json';
  bodyStream: AsyncIterable<Buffer> | undefined = undefined;
  principal: Principal | undefined = undefined;
  locals: unknown = undefined;
  readonly #remote: Uint8Array;
  readonly #fallbackHost: string;
  #query: URLSearchParams | undefined;
  #baseUrl: string | undefined;
  #remoteText: string | undefined;
  #abort: AbortController | undefined;
  #aborted = false;

  constructor(init: RequestInit) {
    this.method = init.method;
    this.path = init.path;
    this.rawQuery = init.rawQuery;
    this.headers = init.headers;
    this.params = init.params;
    this.fromTrustedProxy = init.fromTrustedProxy;
    this.#remote = init.remote;
    this.#fallbackHost = init.fallbackHost;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  get remoteAddress(): string {
    return (this.#remoteText ??= ipText(this.#remote));
  }

  get baseUrl(): string {
    return (this.#baseUrl ??= baseUrlOf(this.headers, this.fromTrustedProxy, this.#fallbackHost));
  }

  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      this.#abort = new AbortController();
      if (this.#aborted) this.#abort.abort();
    }
    return this.#abort.signal;
  }

  /** Called by the server when the client went away. */
  markAborted(): void {
    this.#aborted = true;
    this.#abort?.abort();
  }
}

const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * scheme://host[:port] the client used. X-Forwarded-Proto/-Host/-Port count only from a trusted
 * proxy; otherwise the Host header (when well-formed) or the listen address.
 */
export function baseUrlOf(headers: Readonly<Record<string, string>>, trusted: boolean, fallbackHost: string): string {
  const hostHeader = headers['host'];
  let host = hostHeader !== undefined && HOST.test(hostHeader) ? hostHeader : fallbackHost;
  let proto = 'http';
  if (trusted) {
    const fProto = first(headers['x-forwarded-proto'])?.toLowerCase();
    if (fProto === 'http' || fProto === 'https') proto = fProto;
    const fHost = first(headers['x-forwarded-host']);
    if (fHost !== undefined && HOST.test(fHost)) host = fHost;
    const fPort = first(headers['x-forwarded-port']);
    if (fPort !== undefined && /^\d{1,5}$/.test(fPort)) {
      const bare = host.replace(/:\d{1,5}$/, '');
      const isDefault = (proto === 'http' && fPort === '80') || (proto === 'https' && fPort === '443');
      host = isDefault ? bare : `${bare}:${fPort}`;
    }
  }
  return `${proto}://${host}`;
}

function first(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const comma = value.indexOf(',');
  const v = (comma === -1 ? value : value.slice(0, comma)).trim();
  return v === '' ? undefined : v;
}

/**
 * Where the IPv4 address starts in a uWS binary address: 0 for 4 bytes, 12 for IPv4-mapped IPv6
 * (::ffff:a.b.c.d, as uSockets reports IPv4 peers on a dual-stack socket); -1 for any other.
 */
export function ipv4Offset(bytes: Uint8Array): number {
  if (bytes.length === 4) return 0;
  if (bytes.length !== 16 || bytes[10] !== 0xff || bytes[11] !== 0xff) return -1;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return -1;
  return 12;
}

/** Text form of a uWS binary address (4 or 16 bytes); IPv4-mapped IPv6 becomes dotted IPv4. */
export function ipText(bytes: Uint8Array): string {
  const v4 = ipv4Offset(bytes);
  if (v4 >= 0) return bytes.subarray(v4).join('.');
  if (bytes.length !== 16) return '';
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return normalizeIp(groups.join(':')) ?? '';
}

/** Canonical text of an IP address (compressed IPv6, IPv4-mapped as IPv4), or undefined. */
export function normalizeIp(text: string): string | undefined {
  if (isIPv4(text)) return text;
  if (!isIPv6(text)) return undefined;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped !== null) {
    const hi = parseInt(mapped[1] ?? '0', 16);
    const lo = parseInt(mapped[2] ?? '0', 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return canonical;
}
