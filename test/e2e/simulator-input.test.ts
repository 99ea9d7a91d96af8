/**
 * The simulator fails fast and says why (issue 26): a tenant the server does not know stops the run
 * with the server's message (exit 2, no empty table); https:// against a plain HTTP server is one line
 * naming the fix; a server URL with a path prefix (hawkBit under a context path) is used for every
 * request, the Management calls and the devices' alike.
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario, type RunResult } from '../../simulator/run.js';
import { startApp, type App } from '../helpers/app.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

const scenario = (server: string, tenant: string, extra: object = {}) => ({
  name: 'input', server, tenant, durationSeconds: 30, timeScale: 0.01, connectAttempts: 1,
  fleet: { auth: { mode: 'anonymous' }, groups: [{ name: 'in', count: 3 }] },
  ...extra,
});

async function run(s: object): Promise<RunResult & { out: string; err: string }> {
  const out = new Sink();
  const err = new Sink();
  const r = await runScenario(s, { out, err, plainEveryMs: 60_000 });
  return { ...r, out: out.text, err: err.text };
}

describe('the simulator on bad input', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp('memory', { ddi: { authentication: { anonymous: true } } });
  });
  afterAll(async () => { await app?.server.close(); });

  it('stops at once on a tenant the server does not know, with the server message', async () => {
    const started = Date.now();
    const r = await run(scenario(app.url, 'NO-SUCH-TENANT'));
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/^the server answered 404 to the first poll of in-0000\d\d: Tenant 'NO-SUCH-TENANT' does not exist\.$/);
    expect(r.out).not.toMatch(/request\s+count\s+errors/); // no empty table after a bad-input stop
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(25_000); // it did not wait for the run's 30 s (a hang guard, not a speed claim)
  }, 60_000);

  it('says in one line that https:// met a plain HTTP server', async () => {
    const r = await run(scenario(app.url.replace('http://', 'https://'), app.tenant));
    expect(r.exitCode).toBe(1);
    expect(r.error).toContain('TLS handshake failed: is the server plain http? then use http://');
    expect(r.err.trim().split('\n')).toHaveLength(1);
  }, 60_000);

  describe('a server under a path prefix', () => {
    let recorder: Server;
    let url: string;
    const paths: string[] = [];
    beforeAll(async () => {
      // a stand-in that records what reaches it and knows no tenant (so the run ends on the first poll)
      recorder = createServer((req, res) => {
        paths.push(req.url ?? '');
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'not here' }));
      });
      await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
      const address = recorder.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hawkbit/`;
    });
    afterAll(() => { recorder?.close(); });

    it('sends every request under the prefix', async () => {
      const r = await run(scenario(url, 'T1'));
      expect(r.exitCode).toBe(2);
      expect(r.error).toContain(': not here');
      expect(paths.length).toBeGreaterThan(1);
      expect(paths.filter((p) => !p.startsWith('/hawkbit/'))).toEqual([]);
      expect(paths).toContain('/hawkbit/T1/controller/v1/in-000000');
    }, 60_000);
  });
});
