/**
 * An abort cut short by a crash (issue 25, needs `npm run build`): the rollout engine runs in the built
 * CLI as a child process on Redis, reaching it through a proxy that cuts it off between two commands
 * (test/helpers/redis-cut.ts), and is then killed (SIGKILL, its lease not released). The first process
 * dies after some of the abort's cancellations, the second (a restart) after some of its rollback
 * assignments, the third finishes. The abort completes exactly once: every open action canceled once,
 * every failed or canceled target given one rollback action, the rollout stopped with its stopReason,
 * its counts exact. This process serves the Management API and the devices only (no engine).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ACTION_STATUS, type ActionStatusRecord } from '../../../src/domain/action.js';
import { ROLLOUT, type RolloutRecord } from '../../../src/domain/rollout.js';
import { tenantFor } from '../../helpers/app.js';
import { built, CLI, listening, run, type Child } from '../../helpers/cli.js';
import { cutRedisAfter, type RedisCut } from '../../helpers/redis-cut.js';
import { ADMIN_HASH } from '../../helpers/server.js';
import { BASE_TENANT_CONFIG } from '../ddi/fixture.js';
import {
  counts, createSet, createTargets, getRollout, rolloutActions, runDevice, runningRollout, startRolloutApp, waitFor, type RolloutApp,
} from '../rollouts/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-abort-restart-'));
const cuts: RedisCut[] = [];
afterAll(async () => {
  for (const c of cuts) await c.close();
  rmSync(dir, { recursive: true, force: true });
});

const LEASE_MS = 1500;
const TARGETS = 40;
const FAILING = 4;
const CANCEL_LINE = 'cancel action: its rollout was aborted';
const ROLLBACK_LINE = 'Rollback to distribution set';

/** `peregrine serve` on Redis at `redisUrl` (the tenant's engine runs in it); answers when it listens. */
async function serve(tenant: string, redisUrl: string, name: string): Promise<Child> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, JSON.stringify({
    server: { host: '127.0.0.1', port: 0 }, log: { level: 'warn' }, dataDir: join(dir, 'data'),
    store: { kind: 'redis', redisUrl },
    scheduler: { rolloutMs: 50, rolloutLeaseMs: LEASE_MS },
    tenants: [{ name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }], config: BASE_TENANT_CONFIG }],
  }));
  const child = run([CLI, 'serve', '--config', config], { cwd: dir });
  await listening(child, 'redis');
  return child;
}

/** Serves until the proxy cut it off after `after` commands naming `marker`, then dies without a word. */
async function crashAfter(tenant: string, marker: string, after: number, name: string): Promise<void> {
  const cut = await cutRedisAfter(inject('redisUrl'), marker, after);
  cuts.push(cut);
  const child = await serve(tenant, cut.url, name);
  await Promise.race([cut.cut, child.exited.then(() => { throw new Error(`${name} exited:\n${child.stdout}\n${child.stderr}`); })]);
  child.proc.kill('SIGKILL');
  await child.exited;
  await cut.close();
}

async function historyOf(app: RolloutApp, action: number): Promise<string[]> {
  const entries = await app.store.members(app.tenant, ACTION_STATUS, 'action', String(action), { offset: 0, limit: 200 });
  const records = await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, entries.ids);
  return records.flatMap((r) => r?.value.messages ?? []);
}

describe.skipIf(!built)('an abort cut short by a crash, on Redis', () => {
  it('completes exactly once after restarts: each open action canceled once, each rollback action created once, the rollout stopped', async () => {
    const tenant = tenantFor('redis', 'AR');
    const app = await startRolloutApp('redis', { sameAs: { tenant }, manualEngine: true });
    const cids = await createTargets(app, 'ar', TARGETS);
    const [release, previous] = [(await createSet(app)).id, (await createSet(app)).id];
    const abort = { criteria: [{ failureType: 'error', thresholdPercentage: 50, minFinished: FAILING }], onAbort: 'cancel', rollbackTo: previous };

    // the engine of the first process starts the rollout; the failures then make it abort
    const first = crashAfter(tenant, CANCEL_LINE, 10, 'first');
    const r = await runningRollout(app, {
      name: 'abort-restart', targetFilterQuery: 'controllerid==ar-*', distributionSetId: release, amountGroups: 1,
      errorCondition: { condition: 'THRESHOLD', expression: '100' }, abort,
    });
    for (const cid of cids.slice(0, FAILING)) await runDevice(app, cid, 'failure');
    await first;
    const rollout = async (): Promise<RolloutRecord> => (await app.store.get<RolloutRecord>(tenant, ROLLOUT, r.id))!.value;
    const byStatus = async (): Promise<Record<string, number>> => {
      const out: Record<string, number> = {};
      for (const a of await rolloutActions(app, r.id)) {
        const key = a.rollback === true ? 'rollback' : a.status;
        out[key] = (out[key] ?? 0) + 1;
      }
      return out;
    };
    // cut in the middle of the cancellations: stopped, its abort pending, some canceled, others still running
    expect(await rollout()).toMatchObject({ status: 'stopped', abortPending: true, stopReason: { kind: 'abort' } });
    const afterFirst = await byStatus();
    expect(afterFirst['error']).toBe(FAILING);
    expect(afterFirst['canceling']).toBeGreaterThanOrEqual(1);
    expect(afterFirst['running']).toBeGreaterThanOrEqual(1);
    expect(afterFirst['rollback']).toBeUndefined();

    // a restart: the cancellations complete, then it is cut in the middle of the rollback
    await crashAfter(tenant, ROLLBACK_LINE, 10, 'second');
    const afterSecond = await byStatus();
    expect(afterSecond).toMatchObject({ error: FAILING, canceling: TARGETS - FAILING });
    expect(afterSecond['rollback']).toBeGreaterThanOrEqual(1);
    expect(afterSecond['rollback']).toBeLessThan(TARGETS);
    expect((await rollout()).abortPending).toBe(true);

    // a third process finishes the abort
    const third = await serve(tenant, inject('redisUrl'), 'third');
    try {
      await waitFor(rollout, (x) => x.abortPending === false, { what: 'the abort handled', deadline: 20_000 });
    } finally {
      third.proc.kill('SIGKILL');
    }
    const done = await rollout();
    expect(done.status).toBe('stopped');
    expect(done.stopReason).toMatchObject({ kind: 'abort', criterion: abort.criteria[0], observedPercentage: 100 });
    const actions = await rolloutActions(app, r.id);
    const rollbacks = actions.filter((a) => a.rollback === true);
    const own = actions.filter((a) => a.rollback !== true);
    expect(own).toHaveLength(TARGETS);
    // every target failed or was canceled, and each got one rollback action, to the previous set
    expect(rollbacks).toHaveLength(TARGETS);
    expect(new Set(rollbacks.map((a) => a.targetId))).toEqual(new Set(own.map((a) => a.targetId)));
    expect(new Set(rollbacks.map((a) => a.ds))).toEqual(new Set([previous]));
    for (const a of own) {
      const cancels = (await historyOf(app, a.id)).filter((m) => m.includes(CANCEL_LINE));
      expect(cancels, `action ${a.id} (${a.status})`).toHaveLength(a.status === 'error' ? 0 : 1);
    }
    for (const a of rollbacks) expect((await historyOf(app, a.id)).filter((m) => m.includes(ROLLBACK_LINE)), `rollback ${a.id}`).toHaveLength(1);
    const json = await getRollout(app, r.id);
    expect(json.status).toBe('stopped');
    expect(json.totalTargetsPerStatus).toEqual(counts({ error: FAILING, running: TARGETS - FAILING }));
  }, 120_000);
});
