/**
 * A real webhook receiver for the tests: node:http on a free port of 127.0.0.1 that records every
 * POST (headers, raw body, the status it answered) and answers 200, or what the test asks for.
 * `stop()` closes the port (the receiver is down) and `start()` opens the same port again.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import { uid, waitFor, type RolloutApp } from '../rollouts/fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Json;
  /** What the receiver answered. */
  readonly status: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Answer this status to every request from now on (200: accept). */
  answer(status: number): void;
  /** Answer `status` to the next `n` requests, then go back to the current answer. */
  failNext(n: number, status: number): void;
  /** Waits until a received request matches; returns it. */
  next(match: (r: Received) => boolean, what: string, deadline?: number): Promise<Received>;
  /** The accepted (2xx) requests' bodies. */
  accepted(): Json[];
  stop(): Promise<void>;
  start(): Promise<void>;
}

const open = new Set<Receiver>();
afterAll(async () => {
  await Promise.all([...open].map((r) => r.stop()));
});

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  let status = 200;
  let failing = 0;
  let failStatus = 500;
  let server: Server | undefined;
  let port = 0;
  const received: Received[] = [];
  const listen = async (): Promise<void> => {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const answered = failing > 0 ? (failing--, failStatus) : status;
        let body: Json;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        received.push({ headers: req.headers, raw, body, status: answered });
        res.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  await listen();
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer: (s) => {
      status = s;
    },
    failNext: (n, s) => {
      failing = n;
      failStatus = s;
    },
    next: async (match, what, deadline = 15_000) => {
      const found = await waitFor(async () => received.find(match), (r) => r !== undefined, { what, deadline });
      return found as Received;
    },
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.body),
    stop: async () => {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: listen,
  };
  open.add(receiver);
  return receiver;
}

/** Asserts a request carries the peregrine headers and a signature of its raw body with this secret. */
export function expectSigned(r: Received, secret: string): void {
  const expected = `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
  expect(r.headers['x-peregrine-signature']).toBe(expected);
  expect(r.headers['x-peregrine-delivery']).toBe(r.body.id);
  expect(r.headers['x-peregrine-event']).toBe(r.body.type);
  expect(r.headers['content-type']).toBe('application/json');
}

export const WEBHOOKS = '/rest/v1/webhooks';
export const SECRET = 'a-secret-of-some-length';
/** Small timings (config.yaml `webhooks`): a pass every 50 ms, three attempts 300 ms and 600 ms apart. */
export const FAST = { intervalMs: 50, timeoutMs: 2_000, attempts: 3, backoff: { initialMs: 300, factor: 2, maxMs: 1_000 }, leaseMs: 2_000 };

/** POST /rest/v1/webhooks (a unique name, SECRET unless given), expecting 201; returns the body. */
export async function createWebhook(app: RolloutApp, body: Record<string, unknown>): Promise<Json> {
  const res = await app.mgmt.post(WEBHOOKS, { json: { name: uid('hook'), secret: SECRET, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json();
}
