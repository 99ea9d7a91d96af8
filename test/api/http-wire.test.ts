/**
 * What real clients do on the wire: HEAD before GET on one kept-alive connection (SWUpdate), a
 * second server on a port already taken, JSON nested deeper than any document needs.
 * @see issue 7, items 6, 21, 22
 */
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startServer } from '../../src/app/server.js';
import { STORES } from '../helpers/app.js';
import { seedDistributionSet } from '../helpers/seed.js';
import { ADMIN_HASH, startTestServer } from '../helpers/server.js';
import { assign, GATEWAY, startDdiApp } from './ddi/fixture.js';

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** A kept-alive connection that sends requests one after another and reads each answer in full. */
class Connection {
  readonly #socket: Socket;
  #data = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  #closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#data = Buffer.concat([this.#data, chunk]);
      this.#wake?.();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one request; resolves with its answer (a HEAD answer has no body whatever it announces). */
  async send(method: string, path: string, headers: Readonly<Record<string, string>> = {}, timeoutMs = 3000): Promise<Answer> {
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    this.#socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const end = this.#data.indexOf('\r\n\r\n');
      if (end !== -1) {
        const head = this.#data.subarray(0, end).toString('latin1').split('\r\n');
        const parsed: Record<string, string> = {};
        for (const line of head.slice(1)) parsed[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
        const length = method === 'HEAD' ? 0 : Number(parsed['content-length'] ?? 0);
        if (this.#data.length >= end + 4 + length) {
          const body = this.#data.subarray(end + 4, end + 4 + length);
          this.#data = this.#data.subarray(end + 4 + length);
          return { status: Number(head[0]?.split(' ')[1]), headers: parsed, body };
        }
      }
      if (this.#closed) throw new Error(`connection closed; unanswered ${method} ${path}`);
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no answer to ${method} ${path} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  close(): void {
    this.#socket.destroy();
  }
}

describe.each(STORES)('HEAD on a kept-alive connection, %s store', (kind) => {
  it('answers HEAD on the poll, the artifact list and a download without a body, and the next request on the connection too', async () => {
    const app = await startDdiApp(kind);
    const cid = 'head-dev';
    expect((await app.device(cid).get()).status).toBe(200);
    const { ds, module, artifacts } = await seedDistributionSet(app);
    await assign(app, cid, ds.id);
    const artifact = artifacts[0]!;
    const base = `/${app.tenant}/controller/v1/${cid}`;
    const download = `${base}/softwaremodules/${module.id}/artifacts/${artifact.record.filename}`;
    const conn = await Connection.open(app.server.port);
    try {
      for (const path of [base, `${base}/softwaremodules/${module.id}/artifacts`, download, `${download}.MD5SUM`]) {
        const get = await conn.send('GET', path, GATEWAY);
        expect(get.status, path).toBe(200);
        const head = await conn.send('HEAD', path, GATEWAY);
        expect(head.status, path).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers['content-length'], path).toBe(String(get.body.length));
        // the connection is still in step: the next request is answered, with its own body
        const again = await conn.send('GET', path, GATEWAY);
        expect(again.status, path).toBe(200);
        expect(again.body.equals(get.body) || path === base, path).toBe(true);
      }
      // Range applies to GET only (RFC 9110 14.2): a ranged HEAD announces the whole artifact
      const ranged = await conn.send('HEAD', download, { ...GATEWAY, Range: 'bytes=0-99' });
      expect(ranged.status).toBe(200);
      expect(ranged.headers['content-length']).toBe(String(artifact.content.length));
      const part = await conn.send('GET', download, { ...GATEWAY, Range: 'bytes=0-99' });
      expect(part.status).toBe(206);
      expect(part.body.equals(artifact.content.subarray(0, 100))).toBe(true);
      const poll = await conn.send('GET', base, GATEWAY);
      expect(poll.status).toBe(200);
      expect(JSON.parse(poll.body.toString()).config.polling.sleep).toMatch(/^\d\d:\d\d:\d\d$/);
      // 304 and 204 have no body either: the connection must stay in step after them too
      const etag = poll.headers['etag'] ?? '';
      expect((await conn.send('GET', base, { ...GATEWAY, 'If-None-Match': etag })).status).toBe(304);
      expect((await conn.send('HEAD', base, { ...GATEWAY, 'If-None-Match': etag })).status).toBe(304);
      const admin = { Authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
      expect((await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: 'gone', name: 'gone' }] })).status).toBe(201);
      expect((await conn.send('DELETE', '/rest/v1/targets/gone', admin)).status).toBe(204);
      expect((await conn.send('GET', base, GATEWAY)).status).toBe(200);
    } finally {
      conn.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('listening', () => {
  it('refuses to start on a port another server already listens on, naming the reason', async () => {
    // a port chosen up front, as an operator configures one (port 0 would give each server its own)
    const port = await freePort();
    const first = await startTestServer({ server: { host: '127.0.0.1', port } });
    const config = parseConfig(
      {
        server: { host: '127.0.0.1', port },
        log: { level: 'silent' },
        store: { kind: 'memory' },
        tenants: [{ name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }] }],
      },
      { source: 'test config', env: {} },
    );
    await expect(startServer(config)).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: the port is already in use/);
    // the first server still answers alone
    const res = await fetch(`${first.url}/health`);
    expect(res.status).toBe(200);
  });
});

describe.each(STORES)('deeply nested JSON, %s store', (kind) => {
  it('answers 400 naming the nesting limit, on Management and DDI bodies', async () => {
    const app = await startDdiApp(kind);
    expect((await app.device('deep-dev').get()).status).toBe(200);
    const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    const deepObject = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    for (const body of [deep(5000), deepObject(5000), `{"status":${deepObject(3000)}}`, `[{"name":"x","description":${deep(100_000)}}]`]) {
      const mgmt = await app.mgmt.post('/rest/v1/targets', { body, headers: { 'content-type': 'application/json' } });
      expect(mgmt.status).toBe(400);
      expect(mgmt.json().errorCode).toBe('hawkbit.server.error.rest.body.notReadable');
      expect(mgmt.json().message).toMatch(/nested deeper than 1000 levels/);
      const ddi = await app.device('deep-dev').put('/configData', { body, headers: { 'content-type': 'application/json' } });
      expect(ddi.status).toBe(400);
      expect(ddi.json().message).toMatch(/nested deeper than 1000 levels/);
    }
    // documents within the limit are read as before
    const ok = await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: 'nested-ok', name: 'n' }] });
    expect(ok.status).toBe(201);
  });
});
