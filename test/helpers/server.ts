/**
 * The real server, in process, on a free port of 127.0.0.1, with quiet logs and a temporary data
 * directory. Every server started here is closed when the test (or, if started in a hook, the
 * file) ends. `http(url)` is a small fetch client that reads the whole reply.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import type { Logger } from 'pino';
import { parseConfig, type Config, type ConfigInput } from '../../src/config/index.js';
import type { Route } from '../../src/http/types.js';
import type { ModuleFactory } from '../../src/app/modules.js';
import { startServer, type RunningServer } from '../../src/app/server.js';

/** scrypt hash of "admin" (the same account config.yaml ships). */
export const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0=';
export const ADMIN: readonly [string, string] = ['admin', 'admin'];

export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

export interface TestServerOptions {
  /** Extra routes (probe handlers for platform tests). */
  readonly routes?: readonly Route[];
  /** Replaces the module registry. */
  readonly modules?: ModuleFactory;
  /** memory (default), a Redis URL, or the node URLs of a Redis Cluster. */
  readonly redisUrl?: string;
  readonly redisCluster?: readonly string[];
  /** The server's logger (a test that reads the log lines); else quiet at the test log level. */
  readonly logger?: Logger;
}

export interface TestServer {
  /** http://127.0.0.1:port */
  readonly url: string;
  readonly port: number;
  readonly config: Config;
  readonly server: RunningServer;
  close(): Promise<void>;
}

const open = new Set<TestServer>();
afterAll(async () => {
  await Promise.all([...open].map((s) => s.close()));
});

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlain(v) && isPlain(b) ? merge(b, v) : v; // arrays and scalars replace
  }
  return out;
}
function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function startTestServer(overrides: DeepPartial<ConfigInput> = {}, opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'peregrine-test-'));
  const base: Record<string, unknown> = {
    server: { host: '127.0.0.1', port: 0 },
    log: { level: process.env['PEREGRINE_TEST_LOG'] ?? 'silent' },
    dataDir,
    store: opts.redisCluster !== undefined
      ? { kind: 'redis', redisCluster: [...opts.redisCluster] }
      : opts.redisUrl !== undefined ? { kind: 'redis', redisUrl: opts.redisUrl } : { kind: 'memory' },
    tenants: [{ name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }] }],
  };
  const config = parseConfig(merge(base, overrides), { source: 'test config', env: {} });
  const logger = opts.logger === undefined ? {} : { logger: opts.logger };
  const server = await startServer(config, { routes: opts.routes, modules: opts.modules, ...logger });
  let closing: Promise<void> | undefined;
  const handle: TestServer = {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    config,
    server,
    close: () =>
      (closing ??= server.close(2_000).finally(() => {
        open.delete(handle);
        rmSync(dataDir, { recursive: true, force: true });
      })),
  };
  open.add(handle);
  try {
    onTestFinished(() => handle.close());
  } catch {
    // started in a hook: the file's afterAll closes it
  }
  return handle;
}

export interface RequestOptions {
  /** [username, password] or a ready `user:password` string. */
  readonly auth?: readonly [string, string] | string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON with Content-Type application/json. */
  readonly json?: unknown;
  /** Sent as is. */
  readonly body?: string | Buffer | Uint8Array;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json<T = any>(): T;
}

export function http(baseUrl: string) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== undefined) {
      const pair = typeof options.auth === 'string' ? options.auth : `${options.auth[0]}:${options.auth[1]}`;
      headers['authorization'] ??= `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    let body: string | Uint8Array | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  }
  return {
    request,
    get: (path: string, o?: RequestOptions) => request('GET', path, o),
    head: (path: string, o?: RequestOptions) => request('HEAD', path, o),
    delete: (path: string, o?: RequestOptions) => request('DELETE', path, o),
    post: (path: string, o?: RequestOptions) => request('POST', path, o),
    put: (path: string, o?: RequestOptions) => request('PUT', path, o),
    patch: (path: string, o?: RequestOptions) => request('PATCH', path, o),
  };
}

export interface RawResponse {
  readonly status: number;
  /** Header block as received (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One request over a raw socket, for what fetch would "fix" first (`..` segments, bad encodings,
 * oversized chunked bodies). Resolves on the first complete response or when the server closes.
 */
export async function rawHttp(port: number, head: string, body?: Buffer | (() => AsyncIterable<Buffer>)): Promise<RawResponse> {
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const lines = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (data.length < end + 4 + length) return;
      settled = true;
      socket.destroy();
      resolve({ status: Number(lines[0]?.split(' ')[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      finish();
    });
    socket.on('error', (err) => {
      finish();
      if (!settled) reject(err);
    });
    socket.on('close', () => {
      finish();
      if (!settled) reject(new Error(`connection closed before a complete response: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`));
    });
    socket.on('connect', () => {
      socket.write(head);
      if (body === undefined) return;
      if (Buffer.isBuffer(body)) {
        socket.write(body);
        return;
      }
      void (async () => {
        for await (const chunk of body()) {
          if (settled || socket.destroyed || data.length > 0) return; // the server answered: stop sending
          if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
        }
      })().catch(() => undefined);
    });
  });
}
