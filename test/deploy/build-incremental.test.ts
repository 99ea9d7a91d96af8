/**
 * scripts/build.mjs (what `npm start` runs first) on a scratch package: a one-file src/ compiled by the real tsc
 * and a stand-in scripts/build-ui.mjs. A second run with nothing changed says "up to date" and leaves every file
 * in dist/ as it was; a changed source rebuilds its part only; a failed build is tried again next time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'build-incremental-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Sets `path`'s time one minute ahead, so it is newer than any stamp however coarse the file system's clock. */
function touch(path: string): void {
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, path), later, later);
}

function build(): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(repo, 'scripts/build.mjs')], { cwd: dir, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** Path -> modification time of every file under dist/. */
function distTimes(): Map<string, number> {
  const times = new Map<string, number>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else times.set(join(d, e.name), statSync(join(d, e.name)).mtimeMs);
    }
  };
  walk(join(dir, 'dist'));
  return times;
}

write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', types: [] } }));
write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: 'dist', rootDir: '.' }, include: ['src'] }));
write('src/a.ts', 'export const a: number = 1;\n');
write('ui/src/main.tsx', 'export {};\n');
write('scripts/build-ui.mjs', "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist/ui', { recursive: true });\nwriteFileSync('dist/ui/index.html', String(Date.now()));\n");
symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));

describe('incremental build (scripts/build.mjs)', () => {
  it('builds both parts the first time, then says up to date and touches nothing', { timeout: 120_000 }, () => {
    const first = build();
    expect(first.code).toBe(0);
    expect(first.out).toContain('building src (no previous build)...');
    expect(first.out).toContain('building ui (no previous build)...');
    const before = distTimes();
    expect([...before.keys()].some((p) => p.endsWith(join('dist', 'src', 'a.js')))).toBe(true);

    const second = build();
    expect(second).toEqual({ code: 0, out: 'build: up to date\n' });
    expect(distTimes()).toEqual(before);
  });

  it('rebuilds only the part whose input changed', { timeout: 120_000 }, () => {
    touch('src/a.ts');
    const src = build();
    expect(src.code).toBe(0);
    expect(src.out).toContain('building src (src changed)...');
    expect(src.out).not.toContain('building ui');
    expect(build().out).toBe('build: up to date\n');

    touch('ui/src/main.tsx');
    const ui = build();
    expect(ui.out).toContain('building ui (ui changed)...');
    expect(ui.out).not.toContain('building src');
  });

  it('a failed build exits 1 and is tried again on the next run', { timeout: 120_000 }, () => {
    write('src/a.ts', 'export const a: number = "not a number";\n');
    touch('src/a.ts');
    const failed = build();
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('build of src failed');
    const again = build();
    expect(again.code).toBe(1);
    expect(again.out).toContain('building src (src changed)...');
  });
});
