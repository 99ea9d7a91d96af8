/**
 * The app for the rollout engine's API tests: the real server (every module, the scheduler on with a
 * short rollout pass) on a store of the STORES helper, devices that poll and report over DDI with the
 * gateway token, and helpers that wait for a rollout or group to reach a status (the engine works in
 * the background; tests wait for what it does, without timing it).
 */
import { expect } from 'vitest';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import type { ConfigValue } from '../../../src/domain/tenant-config.js';
import { storeOptions, tenantFor, withAuth, type App, type StoreKind } from '../../helpers/app.js';
import { ADMIN, ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';

export const GATEWAY_KEY = 'gw-rollout-engine-0123456789';
const GATEWAY = { authorization: `GatewayToken ${GATEWAY_KEY}` } as const;

export interface RolloutApp extends App {
  /** Polls as the device and reports the open deployment's end; false when it has none. */
  report(controllerId: string, finished: 'success' | 'failure'): Promise<boolean>;
  /** The id of the deployment the device is offered now, if any. */
  offered(controllerId: string): Promise<number | undefined>;
}

export interface RolloutAppOptions {
  readonly tenantConfig?: Record<string, ConfigValue>;
  readonly users?: readonly unknown[];
  readonly scheduler?: Record<string, unknown>;
  readonly quotas?: Record<string, number>;
  /** The tenant (default: one of its own on Redis, DEFAULT on memory). */
  readonly tenant?: string;
}

export async function startRolloutApp(kind: StoreKind, opts: RolloutAppOptions = {}): Promise<RolloutApp> {
  const tenant = opts.tenant ?? tenantFor(kind, 'R');
  const admin = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };
  const config = {
    'authentication.gatewaytoken.enabled': true, 'authentication.gatewaytoken.key': GATEWAY_KEY, ...opts.tenantConfig,
  };
  const server = await startTestServer({
    tenants: [{ name: tenant, users: [admin, ...(opts.users ?? [])], config }],
    scheduler: { rolloutMs: 50, ...opts.scheduler },
    quotas: opts.quotas ?? {},
  } as never, storeOptions(kind));
  const client = http(server.url);
  const device = (cid: string) => `/${tenant}/controller/v1/${encodeURIComponent(cid)}`;
  const offered = async (cid: string): Promise<number | undefined> => {
    const res = await client.get(device(cid), { headers: GATEWAY });
    expect(res.status).toBe(200);
    const href = res.json<{ _links?: { deploymentBase?: { href: string } } }>()._links?.deploymentBase?.href;
    const m = href === undefined ? null : /deploymentBase\/([0-9]+)/.exec(href);
    return m === null ? undefined : Number(m[1]);
  };
  return {
    url: server.url, tenant, server, store: server.server.store,
    mgmt: withAuth(client, ADMIN),
    anon: client,
    ddi: `/${tenant}/controller/v1`,
    offered,
    async report(cid, finished) {
      const id = await offered(cid);
      if (id === undefined) return false;
      expect((await client.get(`${device(cid)}/deploymentBase/${id}`, { headers: GATEWAY })).status).toBe(200);
      const res = await client.post(`${device(cid)}/deploymentBase/${id}/feedback`, {
        headers: GATEWAY, json: { status: { execution: 'closed', result: { finished } } },
      });
      expect(res.status).toBe(200);
      return true;
    },
  };
}

/** A complete distribution set and `n` targets `<prefix>-1..n`; returns the set's id. */
export async function seedFleet(app: App, prefix: string, n: number): Promise<number> {
  const { ds } = await seedDistributionSet(app);
  for (let i = 1; i <= n; i++) await seedTarget(app, `${prefix}-${i}`);
  return ds.id;
}

export interface RolloutJson {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly totalTargets: number;
  readonly deleted: boolean;
  readonly totalTargetsPerStatus: Record<string, number>;
  readonly totalGroups: number;
  readonly approvalRemark?: string;
  readonly approveDecidedBy?: string;
}
export interface GroupJson {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly totalTargets: number;
  readonly totalTargetsPerStatus?: Record<string, number>;
}

export async function createRollout(app: App, body: Record<string, unknown>): Promise<RolloutJson> {
  const res = await app.mgmt.post('/rest/v1/rollouts', { json: body });
  expect(res.status, res.text).toBe(201);
  return res.json<RolloutJson>();
}

export async function getRollout(app: App, id: number): Promise<RolloutJson> {
  const res = await app.mgmt.get(`/rest/v1/rollouts/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json<RolloutJson>();
}

export async function groupsOf(app: App, id: number): Promise<GroupJson[]> {
  const res = await app.mgmt.get(`/rest/v1/rollouts/${id}/deploygroups?representation=full&limit=500`);
  expect(res.status, res.text).toBe(200);
  return res.json<{ content: GroupJson[] }>().content;
}

/** The controller ids of a group's targets. */
export async function groupTargets(app: App, rollout: number, group: number): Promise<string[]> {
  const res = await app.mgmt.get(`/rest/v1/rollouts/${rollout}/deploygroups/${group}/targets?limit=500`);
  expect(res.status, res.text).toBe(200);
  return res.json<{ content: { controllerId: string }[] }>().content.map((t) => t.controllerId);
}

/** The actions of a rollout, as stored. */
export async function rolloutActions(app: App, rollout: number): Promise<ActionRecord[]> {
  const page = await app.store.members(app.tenant, ACTION, 'rollout', String(rollout), { offset: 0, limit: 1000 });
  return (await app.store.getMany<ActionRecord>(app.tenant, ACTION, page.ids)).flatMap((a) => (a === undefined ? [] : [a.value]));
}

/** Waits (checking every 25 ms, for at most `ms`) until `probe` answers true; fails with what it saw last. */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}; last seen ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await read();
  }
  return last;
}

export const statusOf = (app: App, id: number, status: string): Promise<RolloutJson> =>
  until(`rollout ${id} ${status}`, () => getRollout(app, id), (r) => r.status === status);
