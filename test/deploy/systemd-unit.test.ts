/**
 * deploy/peregrine.service: `systemd-analyze verify` accepts it without a warning (skipped where systemd-analyze
 * is not installed), and it runs node directly (so systemd's SIGTERM reaches the server), restarts on failure,
 * runs as its own user in its directory, and names the store in its environment.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const UNIT = readFileSync(join(resolve(import.meta.dirname, '../..'), 'deploy/peregrine.service'), 'utf8');
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const hasAnalyze = analyze.status === 0;
const dir = mkdtempSync(join(tmpdir(), 'systemd-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `systemd-analyze verify` on `text` saved as peregrine.service; node's path is this machine's (verify checks it exists). */
function verify(text: string): { code: number | null; stderr: string } {
  const file = join(dir, 'peregrine.service');
  writeFileSync(file, text.replaceAll('/usr/bin/node', process.execPath));
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

describe('deploy/peregrine.service', () => {
  it('runs node directly as its own user, restarts on failure, names the store', () => {
    const line = (key: string): string[] => UNIT.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
    expect(line('ExecStart')).toEqual([expect.stringMatching(/^\/usr\/bin\/node .*dist\/src\/app\/cli\.js serve --config \S+$/)]);
    expect(line('Restart')).toEqual(['on-failure']);
    expect(line('User')).toEqual(['peregrine']);
    expect(line('WorkingDirectory')).toEqual(['/opt/peregrine']);
    expect(line('Environment')).toEqual(expect.arrayContaining(['PEREGRINE_STORE=redis', expect.stringMatching(/^PEREGRINE_REDIS_URL=redis:\/\//)]));
  });

  it.skipIf(!hasAnalyze)('systemd-analyze verify accepts it without a warning (skipped: systemd-analyze not installed)', () => {
    expect(verify(UNIT)).toEqual({ code: 0, stderr: '' });
    // and the check can fail: a bad value is reported
    expect(verify(UNIT.replace('Restart=on-failure', 'Restart=sometimes')).stderr).toContain('restart specifier');
  });
});
