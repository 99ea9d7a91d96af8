/**
 * The README's "Your first update" runs as written (issue 26, item 6): the shell block between its
 * guide markers, with bash and curl, against a fresh server; the device ends in sync and the
 * artifact it downloaded is the one uploaded.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../helpers/app.js';

const README = resolve(import.meta.dirname, '../../README.md');

/** The shell block between `<!-- guide:start` and `<!-- guide:end -->`. */
function guide(): string {
  const text = readFileSync(README, 'utf8');
  const m = /<!-- guide:start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- guide:end -->/.exec(text);
  if (m?.[1] === undefined) throw new Error('README has no guide block between <!-- guide:start --> and <!-- guide:end -->');
  return m[1];
}

describe("the README's first update", () => {
  let app: App;
  let dir: string;
  beforeAll(async () => {
    app = await startApp('memory');
    dir = mkdtempSync(join(tmpdir(), 'guide-'));
  });
  afterAll(async () => {
    await app?.server.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written and leaves the device in sync', async () => {
    const { stdout } = await promisify(execFile)('bash', ['-e', '-c', guide()], {
      cwd: dir, env: { ...process.env, PEREGRINE: app.url, T: app.tenant }, timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ assigned: 1, alreadyAssigned: 0 });
    expect(lines.at(-1)).toBe('in_sync');
    expect((await app.mgmt.get('/rest/v1/targets/dev-1')).json().updateStatus).toBe('in_sync');
    const actions = (await app.mgmt.get('/rest/v1/targets/dev-1/actions')).json();
    expect(actions.content[0]).toMatchObject({ status: 'finished' });
  }, 90_000);
});
