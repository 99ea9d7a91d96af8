/**
 * The device side of HTTP: one undici Pool per origin with keep-alive, a cap on requests in flight
 * (so a large fleet queues instead of opening thousands of sockets), and small helpers for JSON.
 */
import { Pool, type Dispatcher } from 'undici';

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) { this.active++; return; }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    // Hand the slot straight to the next waiter so the count never dips below the real number in flight.
    if (next) next(); else this.active--;
  }
}

export interface SimResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Dispatcher.ResponseData['body'];
}

export interface RequestSpec {
  readonly method: 'GET' | 'PUT' | 'POST';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
}

export class SimHttp {
  private readonly pool: Pool;
  private readonly gate: Semaphore;
  readonly origin: string;

  constructor(server: string, concurrency: number) {
    this.origin = new URL(server).origin;
    this.pool = new Pool(this.origin, { connections: concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
    this.gate = new Semaphore(concurrency);
  }

  /** Sends a request; the caller must consume or dump the body (see `drain`) before the slot frees. */
  async send(spec: RequestSpec, use: (res: SimResponse) => Promise<void>): Promise<void> {
    const url = new URL(spec.url, this.origin);
    if (url.origin !== this.origin) throw new Error(`link to another origin: ${spec.url}`);
    const headers: Record<string, string> = { ...spec.headers };
    let body: string | undefined;
    if (spec.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(spec.json); }
    await this.gate.acquire();
    try {
      const res = await this.pool.request({ method: spec.method, path: url.pathname + url.search, headers, body });
      try { await use({ status: res.statusCode, headers: res.headers, body: res.body }); } finally { await drain(res.body); }
    } finally {
      this.gate.release();
    }
  }

  async close(): Promise<void> { await this.pool.close(); }
}

async function drain(body: SimResponse['body']): Promise<void> {
  if (body.bodyUsed) return;
  try { await body.dump(); } catch { /* connection already gone */ }
}

export function header(res: SimResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
