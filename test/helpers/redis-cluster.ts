import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { findRedisBinary, startRedis, type RedisServer } from './redis.js';

const run = promisify(execFile);

/** A Redis Cluster of private redis-servers on free ports, built with `redis-cli --cluster create`. */
export interface RedisCluster {
  /** One URL per node, masters first: the root nodes a client is given. */
  readonly urls: readonly string[];
  readonly nodes: readonly RedisServer[];
  /** The node serving `key`'s slot as master now (it changes after a failover). */
  masterOf(key: string): Promise<RedisServer>;
  /**
   * Resolves when every live node reports cluster_state:ok and agrees who serves each slot, and every
   * live replica has caught up with its master (so a write confirmed by WAIT is on it).
   */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  readonly masters?: number;
  readonly replicasPerMaster?: number;
  /**
   * How long a node may not answer before the others mark it failed and a replica takes over
   * (cluster-node-timeout). Default Redis's 15 s: a node starved of CPU on a busy machine must not
   * take the cluster down for the tests that share it.
   */
  readonly nodeTimeoutMs?: number;
  /** Parent of the nodes' data directories; default a fresh temporary one. */
  readonly dir?: string;
}

export async function startRedisCluster(options: StartClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'peregrine-cluster-'));
  const nodes: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const nodeDir = mkdtempSync(join(dir, 'node-'));
      nodes.push(await startRedis({ dir: nodeDir, cluster: { nodeTimeoutMs: options.nodeTimeoutMs ?? 15_000 } }));
    }
    // redis-cli makes the first `masters` nodes masters and spreads the others over them as replicas
    await run(findRedisBinary('redis-cli'), [
      '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes',
    ], { timeout: 30_000 });
    const cluster = handle(nodes, stop);
    await cluster.settled();
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

function handle(nodes: readonly RedisServer[], stop: () => Promise<void>): RedisCluster {
  const alive = new Set(nodes);
  const killOne = (n: RedisServer) => async () => {
    alive.delete(n);
    await n.kill();
  };
  const tracked = nodes.map((n) => ({ ...n, kill: killOne(n), stop: async () => { alive.delete(n); await n.stop(); } }));
  const byPort = new Map(tracked.map((n) => [n.port, n]));
  const ask = async <T>(node: RedisServer, fn: (c: ReturnType<typeof createClient>) => Promise<T>): Promise<T> => {
    const client = createClient({ url: node.url, socket: { reconnectStrategy: false, connectTimeout: 1000 } });
    client.on('error', () => {});
    await client.connect();
    try {
      return await fn(client);
    } finally {
      client.destroy();
    }
  };
  type Slots = [number, number, [string, number]][];
  /** Slot ranges and their master's port, as one node sees them. */
  const slotsSeenBy = (node: RedisServer): Promise<string> =>
    ask(node, async (c) => {
      const info = await c.clusterInfo();
      if (!/cluster_state:ok/.test(info)) return 'not ok';
      const slots = await c.sendCommand<Slots>(['CLUSTER', 'SLOTS']);
      return slots.map(([from, to, [, port]]) => `${from}-${to}@${port}`).sort().join(',');
    });
  /** Whether every live replica has loaded its master's data and its master counts it online. */
  const replicasInSync = async (): Promise<boolean> => {
    for (const node of tracked.filter((n) => alive.has(nodes[tracked.indexOf(n)]!))) {
      const info = await ask(node, (c) => c.info('replication'));
      if (!/role:slave/.test(info)) continue;
      const master = byPort.get(Number(/master_port:(\d+)/.exec(info)?.[1]));
      if (!/master_link_status:up/.test(info) || master === undefined) return false;
      if (!new RegExp(`port=${node.port},state=online`).test(await ask(master, (c) => c.info('replication')))) return false;
    }
    return true;
  };
  return {
    urls: tracked.map((n) => n.url),
    nodes: tracked,
    async masterOf(key) {
      const node = [...alive][0];
      if (node === undefined) throw new Error('no node of the cluster is running');
      return ask(node, async (c) => {
        const slot = await c.clusterKeySlot(key);
        const slots = await c.sendCommand<[number, number, [string, number]][]>(['CLUSTER', 'SLOTS']);
        const range = slots.find(([from, to]) => slot >= from && slot <= to);
        const master = range === undefined ? undefined : byPort.get(range[2][1]);
        if (master === undefined) throw new Error(`no master serves slot ${slot}`);
        return master;
      });
    },
    async settled(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const views = await Promise.all([...alive].map((n) => slotsSeenBy(n).catch(() => 'unreachable')));
        const deadMasters = views.some((v) => [...nodes].filter((n) => !alive.has(n)).some((n) => v.includes(`@${n.port}`)));
        const agreed = !views.includes('not ok') && !views.includes('unreachable') && new Set(views).size === 1 && !deadMasters;
        if (agreed && (await replicasInSync().catch(() => false))) return;
        if (Date.now() > deadline) throw new Error(`redis cluster did not settle within ${timeoutMs} ms: ${views.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop,
  };
}
