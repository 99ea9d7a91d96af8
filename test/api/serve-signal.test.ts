/**
 * The pid the listening line prints is the server's own, so stopping it works whatever started the server:
 * here a parent that, like npm, neither forwards signals nor is the server. SIGTERM to the printed pid ends
 * the server with exit 0 (graceful shutdown). Needs `npm run build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { built, listening, run } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-signal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/peregrine.js');

describe.skipIf(!built)('stopping the server by the pid it printed', () => {
  it('`peregrine serve` under a parent that does not forward signals: SIGTERM to the printed pid exits 0', async () => {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'server:\n  host: 127.0.0.1\n  port: 0\nlog:\n  level: warn\ntenants:\n  - name: DEFAULT\n');
    const parent = `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([BIN, 'serve', '--config', config])}, { stdio: 'inherit' });
      c.on('exit', (code, signal) => { console.log('server exited ' + (code ?? signal)); process.exit(0); });`;
    const child = run(['-e', parent], { cwd: dir });
    const url = await listening(child);
    const pid = Number(/, pid (\d+)$/m.exec(child.stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(child.proc.pid); // the server, not the parent that started it
    expect((await fetch(`${url}/health`)).status).toBe(200);
    process.kill(pid, 'SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.stdout).toContain('server exited 0');
  });
});
