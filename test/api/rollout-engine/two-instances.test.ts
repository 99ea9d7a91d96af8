/**
 * Two server instances on one Redis (needs `npm run build`; `npm test` builds first): instance A is
 * the built CLI as a child process, instance B runs in this process. The rollout engine runs under
 * the tenant's `rollouts` lease, so only its holder takes steps; killing the holder (SIGKILL, no
 * release) hands the work to the survivor once the lease lapses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from 'redis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../../../src/domain/action.js';
import { tenantFor } from '../../helpers/app.js';
import { ADMIN_HASH } from '../../helpers/server.js';
import { BASE_TENANT_CONFIG } from '../ddi/fixture.js';
import { getGroups, groupTargets, runDevice, seedFleet, startRolloutApp, waitFor, waitStatus } from '../rollouts/fixture.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'dist/src/app/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'peregrine-two-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const LEASE_MS = 1500;

async function startChild(tenant: string, redisUrl: string): Promise<{ proc: ChildProcess; url: string }> {
  const config = join(dir, `${tenant}.yaml`);
  writeFileSync(config, JSON.stringify({
    server: { host: '127.0.0.1', port: 0 }, log: { level: 'warn' }, dataDir: join(dir, 'data'),
    store: { kind: 'redis', redisUrl },
    scheduler: { rolloutMs: 50, rolloutLeaseMs: LEASE_MS },
    tenants: [{
      name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }],
      config: BASE_TENANT_CONFIG,
    }],
  }));
  const proc = spawn(process.execPath, [CLI, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor(async () => /peregrine listening on (http:\/\/\S+)/.exec(out)?.[1], (u) => u !== undefined || proc.exitCode !== null, { what: 'child listening', deadline: 15_000 });
  if (url === undefined) throw new Error(`child did not start:\n${out}`);
  return { proc, url };
}

describe.skipIf(!existsSync(CLI))('two instances on one Redis', () => {
  it('one holder takes every step, one of two concurrent starts wins, the survivor takes over from a killed holder', async () => {
    const redisUrl = inject('redisUrl');
    const redis = createClient({ url: redisUrl });
    await redis.connect();
    try {
      const tenant = tenantFor('redis', 'L');
      const holder = async () => (await redis.get(`{lease:scheduler:rollouts:${tenant}}`)) ?? '';
      const a = await startChild(tenant, redisUrl);
      await waitFor(holder, (o) => o.includes(`-${a.proc.pid}-`), { what: 'A holds the rollouts lease' });
      // an idle tenant's lease lapses (no pass takes it while there is nothing to do): whoever sees the rollout first takes
      // it. A creates the rollout, so its own commit wakes its engine at once; B looks only every second
      const b = await startRolloutApp('redis', { sameAs: { tenant }, scheduler: { rolloutMs: 1000, rolloutLeaseMs: LEASE_MS } });
      const ds = await seedFleet(b, 'two', 20);
      const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
      const created = await fetch(`${a.url}/rest/v1/rollouts`, {
        method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'shared', distributionSetId: ds, targetFilterQuery: 'controllerid==two-*', amountGroups: 2,
          successCondition: { condition: 'THRESHOLD', expression: '100' },
        }),
      });
      expect(created.status).toBe(201);
      const r = (await created.json()) as { id: number };
      await waitStatus(b, r.id, 'ready');
      expect(await holder()).toContain(`-${a.proc.pid}-`);

      // the same start through both instances at once: exactly one wins
      const starts = await Promise.all([
        fetch(`${a.url}/rest/v1/rollouts/${r.id}/start`, { method: 'POST', headers: { authorization: basic } }).then((res) => res.status),
        b.mgmt.post(`/rest/v1/rollouts/${r.id}/start`).then((res) => res.status),
      ]);
      expect(starts.sort()).toEqual([204, 400]);
      await waitStatus(b, r.id, 'running');
      const [g1, g2] = await getGroups(b, r.id);
      for (const cid of await groupTargets(b, r.id, g1?.id ?? 0)) {
        await runDevice(b, cid, 'success');
      }
      await waitFor(() => getGroups(b, r.id), (gs) => gs[1]?.status === 'running', { what: 'group 2 running' });
      expect(await holder()).toContain(`-${a.proc.pid}-`);

      // kill the holder without releasing its lease: B takes over once it lapses
      a.proc.kill('SIGKILL');
      await waitFor(holder, (o) => o.includes(`-${process.pid}-`), { what: 'B holds the rollouts lease', deadline: LEASE_MS * 4 });
      for (const cid of await groupTargets(b, r.id, g2?.id ?? 0)) {
        await runDevice(b, cid, 'success');
      }
      const done = await waitStatus(b, r.id, 'finished');
      expect(done.totalTargetsPerStatus).toMatchObject({ finished: 20, scheduled: 0, running: 0, notstarted: 0 });

      // no step ran twice: one action per target, each started once
      const page = await b.store.members(tenant, ACTION, 'rollout', String(r.id), { offset: 0, limit: 100 });
      const actions = (await b.store.getMany<ActionRecord>(tenant, ACTION, page.ids)).flatMap((x) => (x === undefined ? [] : [x.value]));
      expect(actions).toHaveLength(20);
      expect(new Set(actions.map((x) => x.targetId)).size).toBe(20);
      for (const action of actions) {
        const entries = await b.store.members(tenant, ACTION_STATUS, 'action', String(action.id), { offset: 0, limit: 100 });
        const history = await b.store.getMany<ActionStatusRecord>(tenant, ACTION_STATUS, entries.ids);
        const starts = history.filter((h) => h?.value.messages.some((m) => m.includes('Rollout group started.')));
        expect(starts).toHaveLength(1);
      }
    } finally {
      await redis.quit();
    }
  });
});
