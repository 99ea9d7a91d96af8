import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import { createServices } from '../../../src/app/services.js';
import { parseConfig } from '../../../src/config/index.js';
import { buildModules } from '../../../src/app/modules.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { openStore } from '../../../src/store/index.js';

/**
 * The tables of success codes (docs/reference/success-codes.md) and the routes the server
 * registers say the same: every Management and DDI route has its row with each of its methods, and
 * every row names a route that exists (issue 7 item 14). The codes themselves are asserted by the
 * API suites.
 */
const ROOT = join(import.meta.dirname, '../../..');

function tableRows(): Map<string, Set<string>> {
  const page = readFileSync(join(ROOT, 'docs', 'reference', 'success-codes.md'), 'utf8');
  const rows = new Map<string, Set<string>>();
  for (const line of page.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m === null) continue;
    const methods = [...(m[2] as string).matchAll(/\b(GET|POST|PUT|DELETE|PATCH|HEAD) \d{3}\b/g)].map((x) => x[1] as string);
    rows.set(m[1] as string, new Set(methods));
  }
  return rows;
}

async function registeredRoutes(): Promise<Map<string, Set<string>>> {
  const config = parseConfig({ tenants: [{ name: 'DEFAULT', users: [] }] }, { source: 'test', env: {} });
  const store = await openStore({ kind: 'memory', schema: SCHEMA });
  const services = createServices({ config, logger: pino({ level: 'silent' }), metrics: createMetrics() }, store);
  const modules = buildModules(services);
  await services.close();
  await store.close();
  const routes = new Map<string, Set<string>>();
  for (const r of modules.flatMap((m) => m.routes)) {
    if (!r.path.startsWith('/rest/') && !r.path.startsWith('/:tenant/controller/')) continue;
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    if (!routes.has(path)) routes.set(path, new Set());
    routes.get(path)?.add(r.method);
  }
  return routes;
}

const routes = await registeredRoutes();

describe('the table of success codes (docs/reference/success-codes.md)', () => {
  const rows = tableRows();

  it('lists every registered route with each of its methods', () => {
    expect(routes.size).toBeGreaterThan(80);
    const missing = [...routes].flatMap(([path, methods]) => [...methods].filter((m) => !rows.get(path)?.has(m)).map((m) => `${m} ${path}`));
    expect(missing).toEqual([]);
  });

  it('lists no route or method the server lacks', () => {
    const extra = [...rows].flatMap(([path, methods]) => [...methods].filter((m) => !routes.get(path)?.has(m)).map((m) => `${m} ${path}`));
    expect(extra).toEqual([]);
  });
});
