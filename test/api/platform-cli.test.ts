/**
 * The built CLI as a child process (needs `npm run build`; `npm test` builds first).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../src/config/index.js';
import { built, CLI, listening, run as runIn, type Child } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const QUIET_CONFIG = 'server:\n  host: 127.0.0.1\n  port: 0\nlog:\n  level: warn\ntenants:\n  - name: DEFAULT\n';

function run(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Child {
  return runIn(args, { ...options, cwd: options.cwd ?? dir });
}

describe.skipIf(!built)('peregrine CLI (built)', () => {
  it('serve prints one line with the URL, serves, and exits 0 on SIGTERM', async () => {
    const config = join(dir, 'quiet.yaml');
    writeFileSync(config, QUIET_CONFIG);
    const child = run([CLI, 'serve', '--config', config]);
    const url = await listening(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(child.stdout.split('\n').filter((l) => l.includes(url))).toHaveLength(1);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it('finishes a request in flight on SIGTERM, then exits 0', async () => {
    const config = join(dir, 'quiet.yaml');
    writeFileSync(config, QUIET_CONFIG);
    // the real CLI entry, plus one slow route so there is something in flight
    const runner = join(dir, 'slow-runner.mjs');
    writeFileSync(
      runner,
      `import { runCli } from ${JSON.stringify(pathToFileURL(CLI).href)};\n` +
        `const slow = { method: 'GET', path: '/slow', handler: async () => { console.log('slow request started'); await new Promise((r) => setTimeout(r, 800)); return { status: 200, json: { done: true } }; } };\n` +
        `await runCli(process.argv, { routes: [slow] });\n`,
    );
    const child = run([runner, 'serve', '--config', config]);
    const url = await listening(child);
    const slow = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await vi.waitFor(() => expect(child.stdout).toContain('slow request started'), { timeout: 10_000, interval: 10 });
    child.proc.kill('SIGTERM');
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    expect(await child.exited).toBe(0);
  });

  it('runs on built-in defaults plus environment overrides when ./config.yaml is missing', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    const child = run([CLI, 'serve'], { cwd: empty, env: { PEREGRINE_PORT: '0', PEREGRINE_HOST: '127.0.0.1', PEREGRINE_LOG_LEVEL: 'warn' } });
    const url = await listening(child);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    child.proc.kill('SIGINT');
    expect(await child.exited).toBe(0);
  });

  it('refuses an invalid config file naming the key, with exit 1', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'server:\n  port: abc\n');
    const child = run([CLI, 'serve', '--config', bad]);
    expect(await child.exited).toBe(1);
    expect(child.stderr.trim()).toBe(`peregrine: ${bad}: server.port: expected a number from 0 to 65535, got "abc"`);
  });

  it('refuses a missing --config file', async () => {
    const child = run([CLI, 'serve', '--config', join(dir, 'nope.yaml')]);
    expect(await child.exited).toBe(1);
    expect(child.stderr).toContain('nope.yaml: cannot read the configuration file (ENOENT)');
  });

  it('hash-password reads stdin and prints a verifiable hash', async () => {
    const child = run([CLI, 'hash-password'], { input: 'correct horse\n' });
    expect(await child.exited).toBe(0);
    const hash = child.stdout.trim();
    expect(hash).toMatch(/^scrypt\$/);
    expect(verifyPassword('correct horse', hash)).toBe(true);
  });
});
