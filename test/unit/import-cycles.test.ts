/**
 * No import circles in src/, simulator/ or bench/: files that import each other (type-only imports and
 * re-exports included) cannot be read, tested or moved one at a time. The import graph comes from the
 * TypeScript compiler's parse of each file's static `import` / `export ... from` declarations (a dynamic
 * `import()` is a deliberate lazy load, not an arrow); a circle fails the test with the files on it.
 * No maintained import-cycle rule is installed for ESLint, hence this test (issue 24).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The files of the tree that `file` imports statically (relative specifiers; `.js` names its `.ts` source). */
function importsOf(file: string, text: string, known: ReadonlySet<string>): string[] {
  const parsed = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of parsed.statements) {
    const spec = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) ? statement.moduleSpecifier : undefined;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const target = resolve(dirname(file), spec.text).replace(/\.js$/, '.ts');
    for (const candidate of [target, join(target, 'index.ts')]) {
      if (known.has(candidate)) {
        out.push(candidate);
        break;
      }
    }
  }
  return out;
}

/** The strongly connected components of more than one file (Tarjan): each circle as the files on it. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.reverse());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles', () => {
  it.each(['src', 'simulator', 'bench'])('%s/ has none', (folder) => {
    const files = sourceFiles(join(ROOT, folder));
    expect(files.length).toBeGreaterThan(5);
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'), known)]));
    const named = circles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' -> '));
    expect(named, 'files that import each other: move what ties them into a file both can import').toEqual([]);
  });

  it('finds a circle, type-only imports and re-exports included, and names its files', () => {
    const files = ['/x/a.ts', '/x/b.ts', '/x/c.ts', '/x/d.ts', '/x/e/index.ts'];
    const known = new Set(files);
    const text: Record<string, string> = {
      '/x/a.ts': "import { b } from './b.js';\nimport type { E } from './e';",
      '/x/b.ts': "export { c } from './c.js';",
      '/x/c.ts': "import type { A } from './a.js';\nconst later = () => import('./d.js');",
      '/x/d.ts': "import { a } from './a.js';\nimport { z } from 'zod';",
      '/x/e/index.ts': 'export type E = 1;',
    };
    const graph = new Map(files.map((f) => [f, importsOf(f, text[f]!, known)]));
    expect(graph.get('/x/a.ts')).toEqual(['/x/b.ts', '/x/e/index.ts']);
    expect(circles(graph)).toEqual([['/x/a.ts', '/x/b.ts', '/x/c.ts']]);
    graph.set('/x/c.ts', []);
    expect(circles(graph)).toEqual([]);
  });
});
