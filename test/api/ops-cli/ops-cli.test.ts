/**
 * The operator CLI (src/ops-cli) against a real server over HTTP: the command functions in-process
 * with captured output, and the built `peregrine` binary as a child process once. Pages of two rows
 * (limits.maxPageSize 2) make the commands page through lists.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../src/ops-cli/index.js';
import type { OpsIo } from '../../../src/ops-cli/io.js';
import { rolloutWatch } from '../../../src/ops-cli/rollout-watch.js';
import { rolloutsList } from '../../../src/ops-cli/rollouts-list.js';
import { targetsFind } from '../../../src/ops-cli/targets-find.js';
import { LOCAL_STORES, startApp, type App } from '../../helpers/app.js';
import { built, CLI, run } from '../../helpers/cli.js';
import { oidcConfig, startOidcProvider } from '../../helpers/oidc.js';
import { ADMIN, http, startTestServer } from '../../helpers/server.js';
import {
  createRollout, createSet, createTargets, fleet, groupTargets, op, readyRollout, runDevice, runningRollout, startRolloutApp, uid, waitFor,
  type RolloutApp,
} from '../rollouts/fixture.js';

const LONG = 60_000;
const ADMIN_ENV = { PEREGRINE_USER: 'admin', PEREGRINE_PASSWORD: 'admin' };

interface Captured extends OpsIo {
  out: { write(s: string): boolean; isTTY?: boolean };
  text(): { out: string; err: string };
}

function capture(env: NodeJS.ProcessEnv = ADMIN_ENV): Captured {
  let out = '';
  let err = '';
  return {
    out: { write: (s: string) => ((out += s), true) },
    err: { write: (s: string) => (err += s) },
    env,
    text: () => ({ out, err }),
  };
}

/** The app's API with the rollout events stream answering 404, as a server without live events. */
async function withoutEvents(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url?.endsWith('/events') === true) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such path"}');
      return;
    }
    void fetch(target + (req.url ?? '/'), { headers: { authorization: req.headers.authorization ?? '' } }).then(async (up) => {
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' }).end(await up.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe.each(LOCAL_STORES)('operator CLI on the %s store', (kind) => {
  let app: App;
  let ds: number;
  const prefix = uid('ops');
  beforeAll(async () => {
    app = await startApp(kind, { limits: { maxPageSize: 2, defaultPageSize: 2 } });
    ds = (await createSet(app)).id;
    await createTargets(app, prefix, 5, { name: 'kiosk' });
  });
  afterAll(() => app?.server.close());

  it('rollouts list: every rollout over several pages, with --status', async () => {
    const names = [uid('list'), uid('list'), uid('list')];
    const ids: number[] = [];
    for (const name of names) ids.push((await readyRollout(app, { name, targetFilterQuery: fleet(prefix), distributionSetId: ds })).id);
    const io = capture();
    expect(await exitCodeOf(io, () => rolloutsList({ url: app.url }, io))).toBe(0);
    const lines = io.text().out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+PROGRESS\s+CREATED$/);
    for (const [i, name] of names.entries()) {
      expect(lines.find((l) => l.includes(name))).toMatch(new RegExp(`^${ids[i]}\\s+${name}\\s+ready\\s+0/5\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`));
    }
    const creating = capture();
    expect(await exitCodeOf(creating, () => rolloutsList({ url: app.url, status: 'running' }, creating))).toBe(0);
    expect(creating.text().out.trimEnd().split('\n')).toHaveLength(1); // the header: none running
    expect(creating.text().err).toBe('no rollouts with status running\n');
  });

  it('targets find: a FIQL over pages, --limit, and a bad FIQL as the server\'s one-line message (exit 2)', async () => {
    const io = capture();
    expect(await exitCodeOf(io, () => targetsFind(`controllerId==${prefix}-*`, { url: app.url }, io) )).toBe(0);
    const lines = io.text().out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CONTROLLER ID\s+NAME\s+UPDATE STATUS\s+LAST REQUEST$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([1, 2, 3, 4, 5].map((i) => [`${prefix}-${i}`, 'kiosk', 'unknown', '-']));
    const limited = capture();
    expect(await exitCodeOf(limited, () => targetsFind(`controllerId==${prefix}-*`, { url: app.url, limit: '3' }, limited))).toBe(0);
    expect(limited.text().out.trimEnd().split('\n')).toHaveLength(4);
    expect(limited.text().err).toBe('3 of 5 targets shown (--limit 3)\n');

    const bad = capture();
    expect(await exitCodeOf(bad, () => targetsFind('controllerId=oops=1', { url: app.url }, bad))).toBe(2);
    const err = bad.text().err;
    expect(err).toMatch(/^peregrine: .+ \(HTTP 400\)\n$/);
    expect(err.split('\n')).toHaveLength(2);
    expect(bad.text().out).toBe('');
    const zero = capture();
    expect(await exitCodeOf(zero, () => targetsFind('name==x', { limit: '0' }, zero))).toBe(2);
    expect(zero.text().err).toBe("peregrine: --limit must be a positive whole number, got '0'\n");
  });

  it('wrong credentials, no credentials, an unreachable server, a bad URL', async () => {
    const wrong = capture({ PEREGRINE_USER: 'admin', PEREGRINE_PASSWORD: 'nope' });
    expect(await exitCodeOf(wrong, () => rolloutsList({ url: app.url }, wrong))).toBe(2);
    expect(wrong.text().err).toMatch(/^peregrine: wrong credentials \(set PEREGRINE_USER/);
    const none = capture({});
    expect(await exitCodeOf(none, () => targetsFind('name==x', { url: app.url }, none))).toBe(2);
    expect(none.text().err).toMatch(/^peregrine: wrong credentials/);
    const gone = capture();
    expect(await exitCodeOf(gone, () => rolloutsList({ url: 'http://127.0.0.1:1' }, gone))).toBe(1);
    expect(gone.text().err).toBe('peregrine: cannot reach http://127.0.0.1:1: ECONNREFUSED\n');
    const fromEnv = capture({ ...ADMIN_ENV, PEREGRINE_URL: 'ftp://x' });
    expect(await exitCodeOf(fromEnv, () => rolloutsList({}, fromEnv))).toBe(2);
    expect(fromEnv.text().err).toBe('peregrine: not an http(s) URL: ftp://x\n');
  });

  it('rollout watch: an unknown or malformed id is bad input', async () => {
    const unknown = capture();
    expect(await exitCodeOf(unknown, () => rolloutWatch('999999', { url: app.url }, unknown, new AbortController().signal))).toBe(2);
    expect(unknown.text().err).toMatch(/^peregrine: .*999999.* \(HTTP 404\)\n$/);
    const malformed = capture();
    expect(await exitCodeOf(malformed, () => rolloutWatch('abc', { url: app.url }, malformed, new AbortController().signal))).toBe(2);
    expect(malformed.text().err).toBe("peregrine: a rollout id is a whole number, got 'abc'\n");
  });

  it.skipIf(!built)('the built binary: rollouts list, a password option refused, a bad FIQL without a stack trace', async () => {
    const name = uid('bin');
    await createRollout(app, { name, targetFilterQuery: fleet(prefix), distributionSetId: ds });
    const env = { ...ADMIN_ENV, PEREGRINE_URL: app.url };
    const list = run([CLI, 'rollouts', 'list'], { cwd: process.cwd(), env });
    expect(await list.exited, list.stderr).toBe(0);
    expect(list.stdout).toContain(name);
    const secret = run([CLI, 'targets', 'find', 'name==x', '--password', 'admin'], { cwd: process.cwd(), env });
    expect(await secret.exited).toBe(2);
    expect(secret.stderr).toBe('peregrine: credentials are not taken on the command line (shell history, ps); set PEREGRINE_USER and PEREGRINE_PASSWORD, or PEREGRINE_TOKEN\n');
    const bad = run([CLI, 'targets', 'find', 'controllerId=oops=1'], { cwd: process.cwd(), env });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr).toMatch(/^peregrine: .+ \(HTTP 400\)\n$/);
    const missing = run([CLI, 'rollout', 'watch'], { cwd: process.cwd(), env });
    expect(await missing.exited).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'id'");
  });

  it.skipIf(!built)('the built binary: rollout watch ends on Ctrl-C (SIGINT) with exit 1', async () => {
    const p = uid('sigint');
    await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('sigint'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const watch = run([CLI, 'rollout', 'watch', String(r.id)], { cwd: process.cwd(), env: { ...ADMIN_ENV, PEREGRINE_URL: app.url } });
    await waitFor(async () => watch.stdout, (o) => o.includes('group-1'), { what: 'the first lines' });
    watch.proc.kill('SIGINT');
    expect(await watch.exited).toBe(1);
    expect(watch.stderr).toBe('interrupted\n');
    expect(watch.stdout).toMatch(new RegExp(`^rollout ${r.id} \\S+\\s+running `));
  }, LONG);
});

describe.each(LOCAL_STORES)('rollout watch on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  afterAll(() => app?.server.close());

  /** A running rollout of two groups over four new targets. */
  async function twoGroups(): Promise<{ id: number; targets: string[] }> {
    const p = uid('watch');
    const targets = await createTargets(app, p, 4);
    const r = await runningRollout(app, { name: uid('watch'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    return { id: r.id, targets };
  }

  const expectFinished = (out: string, id: number): void => {
    const lines = out.trimEnd().split('\n');
    expect(lines.some((l) => new RegExp(`^rollout ${id} \\S+\\s+finished\\s+\\[#{20}\\] 4/4$`).test(l)), out).toBe(true);
    for (const group of ['group-1', 'group-2']) {
      expect(lines.some((l) => new RegExp(`^  ${group}\\s+finished\\s+\\[#{20}\\] 2/2$`).test(l)), out).toBe(true);
      expect(lines.some((l) => new RegExp(`^  ${group}\\s+\\S+\\s+\\[\\.{20}\\] 0/2$`).test(l)), out).toBe(true);
    }
    expect(new Set(lines).size, 'one line per change').toBe(lines.length);
  };

  it('follows the live events while devices update, exits 0 once finished', async () => {
    const r = await twoGroups();
    const io = capture();
    const watching = exitCodeOf(io, () => rolloutWatch(String(r.id), { url: app.url }, io, new AbortController().signal));
    await Promise.all(r.targets.map((t) => runDevice(app, t, 'success')));
    expect(await watching).toBe(0);
    expect(io.text().err).toBe('');
    expectFinished(io.text().out, r.id);
  }, LONG);

  it('without the events stream (404) falls back to polling, exits 0 once finished', async () => {
    const r = await twoGroups();
    const proxy = await withoutEvents(app.url);
    try {
      const io = capture();
      const watching = exitCodeOf(io, () => rolloutWatch(String(r.id), { url: proxy.url, interval: '50' }, io, new AbortController().signal));
      await waitFor(async () => io.text().out, (o) => o.includes('group-2'));
      // The first state is drawn before the stream is tried, so the notice can come a moment later.
      expect(await waitFor(async () => io.text().err, (e) => e !== '')).toBe('live events not available; polling every 50 ms\n');
      await Promise.all(r.targets.map((t) => runDevice(app, t, 'success')));
      expect(await watching).toBe(0);
      expectFinished(io.text().out, r.id);
    } finally {
      await proxy.close();
    }
  }, LONG);

  it('a stopped rollout exits 1, with --poll as with the stream; Ctrl-C exits 1', async () => {
    for (const poll of [false, true]) {
      const r = await twoGroups();
      const io = capture();
      const watching = exitCodeOf(io, () => rolloutWatch(String(r.id), { url: app.url, poll, interval: '50' }, io, new AbortController().signal));
      await waitFor(async () => io.text().out, (o) => o.includes('group-2'));
      await op(app, r.id, 'stop');
      expect(await watching).toBe(1);
      expect(io.text().out).toMatch(new RegExp(`^rollout ${r.id} \\S+\\s+stopped `, 'm'));
    }
    const r = await twoGroups();
    const io = capture();
    const interrupt = new AbortController();
    const watching = exitCodeOf(io, () => rolloutWatch(String(r.id), { url: app.url }, io, interrupt.signal));
    await waitFor(async () => io.text().out, (o) => o.includes('group-2'));
    interrupt.abort();
    expect(await watching).toBe(1);
    expect(io.text().err).toBe('interrupted\n');
    expect(await groupTargets(app, r.id, (await app.mgmt.get(`/rest/v1/rollouts/${r.id}/deploygroups`)).json().content[0].id)).toHaveLength(2);
  }, LONG);

  it('on a terminal the lines are redrawn in place', async () => {
    const r = await twoGroups();
    const io = capture();
    io.out.isTTY = true;
    const watching = exitCodeOf(io, () => rolloutWatch(String(r.id), { url: app.url }, io, new AbortController().signal));
    await Promise.all(r.targets.map((t) => runDevice(app, t, 'success')));
    expect(await watching).toBe(0);
    const out = io.text().out;
    expect(out.startsWith('\x1b[2Krollout ')).toBe(true);
    expect(out).toContain('\x1b[3A\x1b[2K'); // back up over the three lines, then redraw them
    expect(out.split('\x1b[3A').at(-1)).toMatch(new RegExp(`^\\x1b\\[2Krollout ${r.id} \\S+\\s+finished\\s+\\[#{20}\\] 4/4\\n\\x1b\\[2K  group-1 `));
  }, LONG);
});

describe('operator CLI with a bearer token (PEREGRINE_TOKEN)', () => {
  it('sends the token instead of Basic credentials; a token the server does not accept is wrong credentials', async () => {
    const provider = await startOidcProvider({ users: [{ username: 'alice', roles: ['peregrine-admin'] }] });
    const server = await startTestServer({ auth: { oidc: oidcConfig(provider, { roles: { 'peregrine-admin': ['ALL'] } }) } });
    try {
      const controllerId = uid('token');
      expect((await http(server.url).post('/rest/v1/targets', { auth: ADMIN, json: [{ controllerId }] })).status).toBe(201);
      const token = await provider.accessToken('alice');
      const io = capture({ PEREGRINE_TOKEN: token, PEREGRINE_USER: 'admin', PEREGRINE_PASSWORD: 'wrong' });
      expect(await exitCodeOf(io, () => targetsFind(`controllerId==${controllerId}`, { url: server.url }, io))).toBe(0);
      expect(io.text().out.trimEnd().split('\n')[1]).toMatch(new RegExp(`^${controllerId}\\s`));
      const forged = capture({ PEREGRINE_TOKEN: 'not.a.token' });
      expect(await exitCodeOf(forged, () => targetsFind('name==x', { url: server.url }, forged))).toBe(2);
      expect(forged.text().err).toMatch(/^peregrine: wrong credentials/);
    } finally {
      await server.close();
      await provider.close();
    }
  }, LONG);
});
