/**
 * The device side of HTTP: one undici Pool per server with keep-alive connections (requests beyond
 * them wait for a free one instead of opening thousands of sockets, a device's follow-up requests
 * before new polls: admission.ts), timing and counting per request kind, and the scenario's injected
 * network faults (a share of requests dropped or delayed).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, type Dispatcher } from 'undici';
import { Admission } from './admission.js';
import type { Kind, Stats } from './stats.js';

export interface SimResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Dispatcher.ResponseData['body'];
}

export interface Faults { readonly drop: number; readonly delay: number; readonly delayMs: number }

export interface RequestSpec {
  readonly kind: Kind;
  readonly method: 'GET' | 'PUT' | 'POST';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly json?: unknown;
  readonly faults: Faults;
  /** Downloads take drops themselves (cut mid-body, to exercise resume); other requests are not sent. */
  readonly dropInside?: boolean;
}

/** A request the scenario's faults dropped: the device sees it as a lost connection. */
export class DroppedError extends Error {}

export class SimHttp {
  private readonly pool: Pool;
  private readonly admission: Admission;
  readonly origin: string;

  constructor(server: string, connections: number, private readonly stats: Stats, private readonly random: () => number) {
    this.origin = new URL(server).origin;
    this.pool = new Pool(this.origin, {
      connections, keepAliveTimeout: 60_000, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000,
    });
    this.admission = new Admission(connections);
  }

  /**
   * Sends a request and hands the answer to `use` (the body is dumped afterwards when `use` left it).
   * Returns the status; throws on transport errors and dropped requests (both counted).
   */
  async send(spec: RequestSpec, use?: (res: SimResponse, dropped: boolean) => Promise<void>): Promise<number> {
    const url = new URL(spec.url, this.origin);
    if (url.origin !== this.origin) throw new Error(`link to another origin: ${spec.url}`);
    const f = spec.faults;
    const dropped = f.drop > 0 && this.random() < f.drop;
    if (dropped) this.stats.faults.dropped++;
    if (dropped && !spec.dropInside) throw new DroppedError('request dropped (injected fault)');
    if (f.delay > 0 && this.random() < f.delay) { this.stats.faults.delayed++; await sleep(f.delayMs); }
    const headers: Record<string, string> = { ...spec.headers };
    let body: string | undefined;
    if (spec.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(spec.json); }
    const started = process.hrtime.bigint();
    await this.admission.enter(spec.kind !== 'poll');
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.pool.request({ method: spec.method, path: url.pathname + url.search, headers, body });
      } catch (e) {
        this.stats.record(spec.kind, started, 'network');
        throw e;
      }
      this.stats.record(spec.kind, started, res.statusCode);
      try {
        if (use) await use({ status: res.statusCode, headers: res.headers, body: res.body }, dropped);
      } finally {
        if (!res.body.bodyUsed && !res.body.destroyed) await res.body.dump().catch(() => undefined);
      }
      return res.statusCode;
    } finally {
      this.admission.leave();
    }
  }

  async close(): Promise<void> { await this.pool.close(); }
}

export function header(res: SimResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
