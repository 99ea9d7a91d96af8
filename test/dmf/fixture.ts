/**
 * The app for DMF tests: the real server with the DMF connector on a test file's private broker
 * (one virtual host per server), a Management client, and a gateway (test/helpers/rabbitmq.ts) on
 * the same virtual host. Memory store, or the shared test Redis or Redis Cluster with a tenant of its own.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, vi } from 'vitest';
import { RABBIT_BOOT_MS } from '../../bench/lib/rabbitmq.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { storeOptions, tenantFor, withAuth, type App, type StoreKind } from '../helpers/app.js';
import { Gateway, startTestRabbit, type RabbitNode } from '../helpers/rabbitmq.js';
import { freePort } from '../helpers/redis.js';
import { ADMIN, ADMIN_HASH, http, startTestServer } from '../helpers/server.js';

export interface DmfApp extends App {
  readonly vhost: string;
  readonly gateway: Gateway;
  /** The stored target of a thing, once registered. */
  target(thingId: string): Promise<TargetRecord | undefined>;
}

export interface DmfAppOptions {
  readonly tenantConfig?: Readonly<Record<string, unknown>>;
  readonly quotas?: Readonly<Record<string, number>>;
  readonly dmf?: Readonly<Record<string, unknown>>;
  /** The gateway's queue survives broker restarts. */
  readonly durableGateway?: boolean;
  /** Background work intervals (config `scheduler`). */
  readonly scheduler?: Readonly<Record<string, unknown>>;
}

export async function startDmfApp(kind: StoreKind, node: RabbitNode, vhost: string, opts: DmfAppOptions = {}): Promise<DmfApp> {
  const tenant = tenantFor(kind, 'M');
  const port = await freePort(); // known before start: artifact URLs in DMF messages name it
  const server = await startTestServer({
    server: { port },
    // artifact URLs in DMF messages are DDI downloads with the target token
    tenants: [{ name: tenant, users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }], config: { 'authentication.targettoken.enabled': true, ...opts.tenantConfig } }],
    dmf: { enabled: true, url: node.url, vhost, ...opts.dmf },
    quotas: opts.quotas ?? {},
    ...(opts.scheduler === undefined ? {} : { scheduler: opts.scheduler }),
  }, storeOptions(kind));
  const gateway = await Gateway.open(node, vhost, { durable: opts.durableGateway === true });
  // the connector declares exchange, queue and binding once it is connected: a PING answered proves the path
  await vi.waitFor(async () => {
    const correlationId = `ready-${Date.now()}`;
    await gateway.send({ headers: { type: 'PING', tenant }, replyTo: gateway.exchange, correlationId }).catch(() => undefined);
    await gateway.take((m) => m.type === 'PING_RESPONSE' && m.correlationId === correlationId, 'PING_RESPONSE', 500);
  }, { timeout: 20_000, interval: 100 });
  const client = http(server.url);
  const store = server.server.store;
  return {
    url: server.url,
    tenant,
    server,
    store,
    vhost,
    gateway,
    mgmt: withAuth(client, ADMIN),
    anon: client,
    ddi: `/${tenant}/controller/v1`,
    target: async (thingId) => {
      const id = await store.lookup(tenant, TARGET, 'controllerId', thingId.toLowerCase());
      return id === undefined ? undefined : (await store.get<TargetRecord>(tenant, TARGET, id))?.value;
    },
  };
}

/** A private broker for the calling test file (started in beforeAll, removed in afterAll); read it inside tests. */
export function useRabbit(vhosts = 2): () => RabbitNode {
  let node: RabbitNode | undefined;
  beforeAll(async () => {
    node = await startTestRabbit(vhosts);
  }, RABBIT_BOOT_MS + 10_000); // a boot takes ~5 s on an idle machine, over 60 s on a loaded one
  afterAll(async () => {
    await node?.destroy();
  });
  return () => {
    if (node === undefined) throw new Error('the broker is not started yet');
    return node;
  };
}

let things = 0;
/** A thing id no other test uses. */
export const newThingId = (prefix = 'thing'): string => `${prefix}-${randomBytes(3).toString('hex')}-${++things}`;
