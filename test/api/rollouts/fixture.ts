/**
 * The app for the rollout API tests, black box: the whole server (default modules, scheduler on) on
 * a store, users with and without APPROVE_ROLLOUT, the DDI gateway token on, and helpers that drive
 * everything over real HTTP — targets, distribution sets, rollouts through the Management API, and
 * devices through DDI (poll, deploymentBase, feedback). The scheduler runs a rollout pass every 50 ms.
 * Waiting is done by polling a GET until a condition holds or a deadline passes (`waitFor`), never by
 * fixed sleeps. The one rollout fixture: the API tests (this folder) and the engine's (../rollout-engine).
 * @see reference/hawkbit-api.md sections 3.7, 4.6, 4.7, 8; spec sections 2.9, 4.6
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { expect } from 'vitest';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import type { ConfigInput } from '../../../src/config/index.js';
import type { ConfigValue } from '../../../src/domain/tenant-config.js';
import { buildModules } from '../../../src/app/modules.js';
import type { PassReport, SchedulerModule } from '../../../src/scheduler/index.js';
import type { RolloutEngine } from '../../../src/scheduler/rollouts.js';
import { appOf, storeOptions, tenantFor, type App, type StoreKind } from '../../helpers/app.js';
import { ADMIN_HASH, startTestServer, type http, type TestResponse } from '../../helpers/server.js';
import { BASE_TENANT_CONFIG, GATEWAY } from '../ddi/fixture.js';
import { completeSet, ds as createDs, dsType as createDsType, smType as createSmType } from '../repository/fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** Creates, reads and handles rollouts, but may not approve them. */
export const CREATOR: readonly [string, string] = ['creator', 'admin'];
/** Creates, reads, updates and deletes rollouts, but may neither handle (start, startAt, ...) nor approve them. */
export const MAKER: readonly [string, string] = ['maker', 'admin'];
/** Reads rollouts and targets only. */
export const READER: readonly [string, string] = ['reader', 'admin'];

export const ERR = {
  body: 'hawkbit.server.error.rest.body.notReadable',
  constraint: 'hawkbit.server.error.repo.constraintViolation',
  notFound: 'hawkbit.server.error.repo.entityNotFound',
  rsqlSyntax: 'hawkbit.server.error.rest.param.rsqlParamSyntax',
  rsqlField: 'hawkbit.server.error.rest.param.rsqlInvalidField',
  sortField: 'hawkbit.server.error.rest.param.invalidField',
  sortDirection: 'hawkbit.server.error.rest.param.invalidDirection',
  illegalState: 'hawkbit.server.error.rollout.illegalState',
  quota: 'hawkbit.server.error.quota.tooManyEntries',
  dsIncomplete: 'hawkbit.server.error.distributionset.incomplete',
  dsInvalid: 'hawkbit.server.error.distributionset.invalid',
  readOnly: 'hawkbit.server.error.entityReadOnly',
  permission: 'hawkbit.server.error.insufficientPermission',
} as const;

export const ROLLOUTS = '/rest/v1/rollouts';

export interface RolloutApp extends App {
  /** A DDI client for one device (gateway token). */
  device(controllerId: string): Device;
  /** One pass of every scheduler task at `now` (the engine's clock); with `manualEngine` the only passes. */
  pass(now: number): Promise<PassReport>;
  /** The server's rollout engine (what it remembers of the rollouts in progress). */
  engine(): RolloutEngine;
}

/** A device of the tenant speaking DDI with the gateway token. */
export function gatewayDevice(client: ReturnType<typeof http>, tenant: string, controllerId: string): Device {
  const base = `/${tenant}/controller/v1/${encodeURIComponent(controllerId)}`;
  return {
    poll: async () => {
      const res = await client.get(base, { headers: GATEWAY });
      expect(res.status, res.text).toBe(200);
      return res.json();
    },
    get: (path) => client.get(base + path, { headers: GATEWAY }),
    post: (path, json) => client.post(base + path, { headers: GATEWAY, json }),
    put: (path, json) => client.put(base + path, { headers: GATEWAY, json }),
  };
}

export interface Device {
  /** GET the controller base (the poll). */
  poll(): Promise<Json>;
  get(path: string): Promise<TestResponse>;
  post(path: string, json: unknown): Promise<TestResponse>;
  put(path: string, json: unknown): Promise<TestResponse>;
}

export interface RolloutAppOptions {
  readonly quotas?: Readonly<Record<string, number>>;
  readonly tenantConfig?: Readonly<Record<string, ConfigValue>>;
  /** Share another app's store and tenant (a second server instance); the store options must match. */
  readonly sameAs?: { readonly tenant: string };
  /** The server's logger (tests that read its log lines). */
  readonly logger?: Logger;
  /** Scheduler settings over the default (`rolloutMs: 50`). */
  readonly scheduler?: Readonly<Record<string, unknown>>;
  /** No scheduler loops: the test drives the engine's clock with `pass(now)`. */
  readonly manualEngine?: boolean;
  /** config.yaml's `webhooks` settings (src/webhooks: intervals, attempts, backoff). */
  readonly webhookSettings?: Readonly<Record<string, unknown>>;
  /** The tenant's `webhooks` in config.yaml. */
  readonly webhooks?: NonNullable<ConfigInput['tenants']>[number]['webhooks'];
}

export async function startRolloutApp(kind: StoreKind, opts: RolloutAppOptions = {}): Promise<RolloutApp> {
  const tenant = opts.sameAs?.tenant ?? tenantFor(kind, 'R');
  let scheduler: SchedulerModule | undefined;
  let engine: RolloutEngine | undefined;
  const handle = ['CREATE', 'READ', 'UPDATE', 'DELETE'].flatMap((op) => [`${op}_ROLLOUT`, `${op}_TARGET`]);
  const server = await startTestServer({
    tenants: [{
      name: tenant,
      config: { ...BASE_TENANT_CONFIG, ...opts.tenantConfig },
      ...(opts.webhooks === undefined ? {} : { webhooks: opts.webhooks }),
      users: [
        { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] },
        {
          username: 'creator', password: ADMIN_HASH,
          permissions: [...handle, 'HANDLE_ROLLOUT', 'READ_REPOSITORY', 'READ_DISTRIBUTION_SET'],
        },
        { username: 'reader', password: ADMIN_HASH, permissions: ['READ_ROLLOUT', 'READ_TARGET'] },
        { username: 'maker', password: ADMIN_HASH, permissions: [...handle, 'READ_REPOSITORY', 'READ_DISTRIBUTION_SET'] },
      ],
    }],
    scheduler: { rolloutMs: 50, ...opts.scheduler, ...(opts.manualEngine === true ? { enabled: false } : {}) },
    quotas: opts.quotas ?? {},
    ...(opts.webhookSettings === undefined ? {} : { webhooks: opts.webhookSettings }),
  }, {
    ...storeOptions(kind), ...(opts.logger === undefined ? {} : { logger: opts.logger }),
    modules: (ctx) => {
      engine = ctx.rolloutEngine;
      const modules = buildModules(ctx);
      scheduler = modules.find((m): m is SchedulerModule => m.name === 'scheduler');
      return modules;
    },
  });
  const app = appOf(server, tenant);
  return {
    ...app,
    device: (controllerId) => gatewayDevice(app.anon, tenant, controllerId),
    engine: () => {
      if (engine === undefined) throw new Error('the app has no rollout engine');
      return engine;
    },
    pass: (now) => {
      if (scheduler === undefined) throw new Error('the app has no scheduler module');
      return scheduler.runOnce(now);
    },
  };
}

let counter = 0;
/** A prefix no other test uses: targets named `<prefix>-<i>` are matched by `controllerid==<prefix>-*`. */
export function uid(prefix = 'ro'): string {
  return `${prefix}-${randomBytes(3).toString('hex')}-${++counter}`;
}

/** The FIQL that matches the targets created with this prefix. */
export const fleet = (prefix: string): string => `controllerid==${prefix}-*`;

/** Creates `count` targets `<prefix>-1..count` through the Management API (extra fields on each). */
export async function createTargets(app: App, prefix: string, count: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  if (count === 0) return ids;
  for (let i = 0; i < ids.length; i += 200) {
    const json = ids.slice(i, i + 200).map((controllerId) => ({ controllerId, ...extra }));
    const res = await app.mgmt.post('/rest/v1/targets', { json });
    expect(res.status, res.text).toBe(201);
  }
  return ids;
}

/** A complete distribution set and `count` targets `<prefix>-1..count`; returns the set's id. */
export async function seedFleet(app: App, prefix: string, count: number): Promise<number> {
  await createTargets(app, prefix, count);
  return (await createSet(app)).id;
}

/** A complete, valid distribution set created through the repository API. */
export async function createSet(app: App): Promise<{ id: number; typeId: number; typeKey: string }> {
  const s = await completeSet(app);
  return { id: s.ds.id, typeId: s.dsType.id, typeKey: s.dsType.key };
}

/** A distribution set whose type requires a module it does not hold. */
export async function incompleteSet(app: App): Promise<number> {
  const t = await createSmType(app);
  const dt = await createDsType(app, [t.id]);
  return (await createDs(app, dt.key, [])).id;
}

/** A distribution set type of its own (for target types that are not compatible with a set). */
export async function otherSetType(app: App): Promise<number> {
  return (await createDsType(app, [(await createSmType(app)).id])).id;
}

/** Asserts a hawkBit error reply: status, errorCode and (optionally) a part of the message. */
export function expectError(res: TestResponse, status: number, errorCode: string, mentions?: string): void {
  expect({ status: res.status, body: res.text }).toMatchObject({ status });
  const body = res.json();
  expect(body.errorCode, res.text).toBe(errorCode);
  expect(typeof body.exceptionClass, res.text).toBe('string');
  if (mentions !== undefined) expect(String(body.message).toLowerCase(), res.text).toContain(mentions.toLowerCase());
}

/** POST /rest/v1/rollouts, expecting 201; returns the body. */
export async function createRollout(app: App, body: Record<string, unknown>, auth?: readonly [string, string]): Promise<Json> {
  const res = await app.mgmt.post(ROLLOUTS, { json: body, ...(auth ? { auth } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.json();
}

export async function getRollout(app: App, id: number): Promise<Json> {
  const res = await app.mgmt.get(`${ROLLOUTS}/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json();
}

/** The groups of a rollout, full representation, in id order. */
export async function getGroups(app: App, id: number): Promise<Json[]> {
  const res = await app.mgmt.get(`${ROLLOUTS}/${id}/deploygroups?representation=full&limit=500`);
  expect(res.status, res.text).toBe(200);
  return res.json().content;
}

/** POST an operation (start, pause, ...) expecting 204. */
export async function op(app: App, id: number, what: string, auth?: readonly [string, string]): Promise<void> {
  const res = await app.mgmt.post(`${ROLLOUTS}/${id}/${what}`, auth ? { auth } : {});
  expect(res.status, `${what}: ${res.text}`).toBe(204);
}

export interface WaitOptions {
  /** ms until the wait fails (default 15 s). */
  readonly deadline?: number;
  readonly what?: string;
}

/**
 * Calls `read` until `done(value)` holds; fails with the last value once the deadline passes.
 * Rollout steps run asynchronously (scheduler and action effects), so tests wait for outcomes.
 */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, opts: WaitOptions = {}): Promise<T> {
  const until = Date.now() + (opts.deadline ?? 15_000);
  let last: T;
  for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, pause));
  }
  const what = opts.what === undefined ? '' : ` for ${opts.what}`;
  throw new Error(`timed out waiting${what}; last seen: ${JSON.stringify(last).slice(0, 2000)}`);
}

/** Waits until the rollout shows `status`; returns it. */
export function waitStatus(app: App, id: number, status: string, deadline?: number): Promise<Json> {
  return waitFor(() => getRollout(app, id), (r) => r.status === status, {
    what: `rollout ${id} ${status}`, ...(deadline ? { deadline } : {}),
  });
}

/** Waits until the group statuses (in id order) are `statuses`. */
export function waitGroups(app: App, id: number, statuses: readonly string[]): Promise<Json[]> {
  return waitFor(() => getGroups(app, id), (gs) => gs.map((g) => g.status).join() === statuses.join(), {
    what: `groups ${statuses.join()}`,
  });
}

/** Creates a rollout and waits until it left creating (ready, or waiting_for_approval). */
export async function readyRollout(app: App, body: Record<string, unknown>, auth?: readonly [string, string]): Promise<Json> {
  const created = await createRollout(app, body, auth);
  return waitFor(() => getRollout(app, created.id), (r) => r.status !== 'creating', { what: `rollout ${created.id} created` });
}

/** Creates, waits for ready, starts and waits for running. */
export async function runningRollout(app: App, body: Record<string, unknown>): Promise<Json> {
  const r = await readyRollout(app, body);
  expect(r.status).toBe('ready');
  await op(app, r.id, 'start');
  return waitStatus(app, r.id, 'running');
}

/** The controller ids of one group's targets (all pages). */
export async function groupTargets(app: App, rolloutId: number, groupId: number): Promise<string[]> {
  const res = await app.mgmt.get(`${ROLLOUTS}/${rolloutId}/deploygroups/${groupId}/targets?limit=500&sort=controllerId:ASC`);
  expect(res.status, res.text).toBe(200);
  return res.json().content.map((t: Json) => t.controllerId);
}

/** The id of the deployment the device's poll offers now (its deploymentBase link), if any. */
export async function offered(app: RolloutApp, controllerId: string): Promise<number | undefined> {
  const href: unknown = (await app.device(controllerId).poll())._links?.deploymentBase?.href;
  const m = typeof href === 'string' ? /deploymentBase\/(\d+)/.exec(href) : null;
  return m === null ? undefined : Number(m[1]);
}

/** The device's open action id from its poll, once it shows one. */
export async function openAction(app: RolloutApp, controllerId: string): Promise<number> {
  const id = await waitFor(() => offered(app, controllerId), (a) => a !== undefined, { what: `a deployment for ${controllerId}` });
  return id ?? 0;
}

/** The actions of a rollout, as stored. */
export async function rolloutActions(app: App, rollout: number): Promise<ActionRecord[]> {
  const page = await app.store.members(app.tenant, ACTION, 'rollout', String(rollout), { offset: 0, limit: 1000 });
  return (await app.store.getMany<ActionRecord>(app.tenant, ACTION, page.ids)).flatMap((a) => (a === undefined ? [] : [a.value]));
}

/** The device's whole update: poll, fetch deploymentBase, report `closed` with `finished` (or `downloaded`). */
export async function runDevice(app: RolloutApp, controllerId: string, outcome: 'success' | 'failure' | 'downloaded'): Promise<number> {
  const id = await openAction(app, controllerId);
  const dev = app.device(controllerId);
  const dep = await dev.get(`/deploymentBase/${id}`);
  expect(dep.status, dep.text).toBe(200);
  const status = outcome === 'downloaded'
    ? { execution: 'downloaded', result: { finished: 'none' } }
    : { execution: 'closed', result: { finished: outcome } };
  const fb = await dev.post(`/deploymentBase/${id}/feedback`, { status });
  expect(fb.status, fb.text).toBe(200);
  return id;
}

/** The per-status counts as hawkBit names them, all six keys. */
type CountKey = 'scheduled' | 'running' | 'error' | 'finished' | 'cancelled' | 'notstarted';
export function counts(c: Partial<Record<CountKey, number>>): Record<string, number> {
  return { scheduled: 0, running: 0, error: 0, finished: 0, cancelled: 0, notstarted: 0, ...c };
}

/** Sets a tenant configuration value through the Management API. */
export async function setConfig(app: App, key: string, value: ConfigValue): Promise<void> {
  const res = await app.mgmt.put(`/rest/v1/system/configs/${key}`, { json: { value } });
  expect([200, 204], res.text).toContain(res.status);
}

/**
 * A group's (or rollout's) conditions and actions as `threshold:50` / `nextgroup` strings. hawkBit
 * writes these enums upper case, the spec (2.9) enumerates them lower case: either spelling passes.
 */
export function conditionsOf(g: Json): { success: string; successAction: string; error: string; errorAction: string } {
  const lc = (v: unknown): string => String(v).toLowerCase();
  return {
    success: `${lc(g.successCondition?.condition)}:${g.successCondition?.expression}`,
    successAction: lc(g.successAction?.action),
    error: `${lc(g.errorCondition?.condition)}:${g.errorCondition?.expression}`,
    errorAction: lc(g.errorAction?.action),
  };
}

/** Waits until the groups (in id order) show these statuses and exactly these per-status counts. */
export function waitGroupCounts(app: App, id: number, expected: readonly (readonly [string, Record<string, number>])[]): Promise<Json[]> {
  const want = JSON.stringify(expected);
  return waitFor(() => getGroups(app, id), (gs) => JSON.stringify(gs.map((g) => [g.status, g.totalTargetsPerStatus])) === want, {
    what: `groups ${want}`,
  });
}
