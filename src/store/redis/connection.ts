import {
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, createClient, createCluster, DisconnectsClientError, ErrorReply,
  ReconnectStrategyError, SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError,
} from 'redis';
import { StoreUnavailableError } from '../port.js';
import { SCRIPTS } from './scripts.js';
import type { TrackingCache } from './cached-reads.js';

export interface ConnectionOptions {
  /** Longest wait between reconnect attempts (ms); attempts never stop. */
  readonly reconnectMaxDelayMs: number;
  /** Connect timeout of one attempt (ms). */
  readonly connectTimeoutMs: number;
  /** Called with every connection error; they are expected while Redis is down. */
  readonly onError: (err: Error) => void;
  /** A RESP3 client-side cache kept coherent by Redis (tracking); absent: no cache. */
  readonly cache?: TrackingCache;
  /** Cluster only: how often the slot map is compared with the cluster's (ms), see watchTopology. */
  readonly topologyCheckMs?: number;
}

/** Where Redis is: the URL of one server, or the URLs of some nodes of a Redis Cluster (its root nodes). */
export type RedisTarget = string | readonly string[];

/**
 * Commands fail at once while the connection is down (no offline queue) so callers answer 503
 * instead of piling up work; the client reconnects with capped exponential backoff forever, so the
 * server recovers by itself when Redis returns.
 */
function socketOptions(options: ConnectionOptions) {
  return {
    connectTimeout: options.connectTimeoutMs,
    reconnectStrategy: (retries: number) =>
      Math.min(50 * 2 ** Math.min(retries, 16), options.reconnectMaxDelayMs) + Math.floor(Math.random() * 50),
  };
}

function createSingle(url: string, options: ConnectionOptions) {
  return createClient({
    url,
    RESP: 3,
    scripts: SCRIPTS,
    disableOfflineQueue: true,
    ...(options.cache ? { clientSideCache: options.cache } : {}),
    socket: socketOptions(options),
  });
}

/**
 * node-redis's cluster client: keyed commands and scripts go to the master of their key's slot (no
 * reads from replicas, so client-side caching and compare-and-set see one copy). Every node
 * connection gets the same settings; credentials and TLS come from the first URL, so all nodes must
 * share them.
 */
function createClustered(urls: readonly string[], options: ConnectionOptions) {
  const first = new URL(urls[0]!);
  return createCluster({
    rootNodes: urls.map((url) => ({ url })),
    RESP: 3,
    scripts: SCRIPTS,
    useReplicas: false,
    ...(options.cache ? { clientSideCache: options.cache } : {}),
    defaults: {
      disableOfflineQueue: true,
      ...(first.username === '' ? {} : { username: decodeURIComponent(first.username) }),
      ...(first.password === '' ? {} : { password: decodeURIComponent(first.password) }),
      socket: { ...socketOptions(options), ...(first.protocol === 'rediss:' ? { tls: true as const } : {}) },
    },
  });
}

type SingleClient = ReturnType<typeof createSingle>;
type ClusterClient = ReturnType<typeof createClustered>;

/**
 * The keyed commands the store sends. A single client and a cluster client offer them with the same
 * signatures (the type checker proves it where a cluster is assigned to this type); on a cluster each
 * goes to the node serving its key's slot. Multi-key commands must name keys of one slot only: every
 * key of a tenant carries the tenant's hash tag (keys.ts).
 */
export type RedisCommands = Pick<
  SingleClient,
  | 'get' | 'set' | 'hGet' | 'hmGet' | 'hGetAll' | 'hScan' | 'hLen' | 'hDel' | 'hIncrBy' | 'unlink' | 'zRem' | 'zRange'
  | 'zCount' | 'zCard' | 'zmScore' | 'xLen' | keyof typeof SCRIPTS
>;

/**
 * The commands the store queues in a MULTI ... EXEC. node-redis types the single and the cluster
 * transaction as two unrelated generic classes, whose union its typings collapse to `any`; this is
 * the slice of both that the store uses.
 */
export interface Transaction {
  zRem(key: string, members: readonly string[]): Transaction;
  hDel(key: string, fields: readonly string[]): Transaction;
  exec(): Promise<unknown>;
}

/** One logical connection to Redis (a server or a whole cluster) and what differs between the two. */
export interface RedisConnection {
  readonly commands: RedisCommands;
  /** MULTI ... EXEC on the node of `key`: every key of the transaction must be in `key`'s slot. */
  multi(key: string): Transaction;
  /**
   * WAIT on the connection to `key`'s node: resolves with how many replicas confirmed every write
   * this connection made there so far (at most `timeoutMs`). It holds up that connection's later
   * commands until then.
   */
  waitReplicas(key: string, replicas: number, timeoutMs: number): Promise<number>;
  /** How many replicas of `key`'s node are connected and in sync (INFO replication, state=online). */
  onlineReplicas(key: string): Promise<number>;
  /** The keys of one type matching a SCAN pattern, in batches, on the server or on every master of the cluster. */
  /** SCAN for keys matching `match` (of one type when given), every master of a cluster. */
  scan(match: string, type?: string): AsyncIterable<string[]>;
  /** PING to the server, or to every master of the cluster: the store answers only when all do. */
  ping(): Promise<void>;
  /** CONFIG GET of one setting on the server, or on every master of the cluster: one value per node (undefined: unknown). */
  configGet(name: string): Promise<(string | undefined)[]>;
  /** Connects (attempts go on in the background); StoreUnavailableError when not ready within `ms`. */
  open(ms: number): Promise<void>;
  /** Waits for replies still due (at most 2 s), then disconnects. */
  close(): Promise<void>;
}

export function createConnection(target: RedisTarget, options: ConnectionOptions): RedisConnection {
  return typeof target === 'string' ? singleConnection(createSingle(target, options), options) : clusterConnection(target, options);
}

function singleConnection(client: SingleClient, options: ConnectionOptions): RedisConnection {
  // without a listener, an 'error' event would crash the process on the first disconnect
  client.on('error', (err: Error) => options.onError(err));
  return {
    commands: client,
    multi: () => client.multi() as unknown as Transaction,
    waitReplicas: (_key, replicas, timeoutMs) => client.wait(replicas, timeoutMs),
    onlineReplicas: async () => countOnline(await client.info('replication')),
    scan: (match, type) => client.scanIterator({ MATCH: match, TYPE: type, COUNT: SCAN_COUNT }),
    async ping() {
      await client.ping();
    },
    configGet: async (name) => [settingOf(await client.configGet(name), name)],
    async open(ms) {
      client.connect().catch(() => {}); // failures reach the 'error' listener; attempts go on
      try {
        await awaitReady(client, ms);
      } catch (err) {
        client.destroy();
        throw err;
      }
    },
    async close() {
      if (!client.isOpen) return;
      if (!client.isReady) return client.destroy();
      // close() waits for replies still due; do not let a hung Redis hold up shutdown
      await withDeadline(client.close(), 2000, 'close').catch(() => client.destroy());
    },
  };
}

function clusterConnection(urls: readonly string[], options: ConnectionOptions): RedisConnection {
  if (urls.length === 0) throw new TypeError('a redis cluster needs at least one node URL');
  const cluster = createClustered(urls, options);
  cluster.on('error', (err: Error) => options.onError(err));
  cluster.on('node-error', (err: Error) => options.onError(err));
  const watch = watchTopology(cluster, options);
  return {
    // the cluster client routes each keyed command by slot; the assignment is checked, not cast
    commands: cluster,
    multi: (key) => cluster.multi(key) as unknown as Transaction,
    // WAIT names no key: route it by the key so it runs on the connection that made the write
    waitReplicas: async (key, replicas, timeoutMs) => Number(await cluster.sendCommand(key, false, ['WAIT', String(replicas), String(timeoutMs)])),
    onlineReplicas: async (key) => countOnline(String(await cluster.sendCommand<string>(key, true, ['INFO', 'replication']))),
    async *scan(match, type) {
      for (const m of cluster.masters) yield* (await cluster.nodeClient(m)).scanIterator({ MATCH: match, TYPE: type, COUNT: SCAN_COUNT });
    },
    async ping() {
      const masters = cluster.masters;
      if (masters.length === 0) throw new StoreUnavailableError('redis cluster: no master known');
      await Promise.all(masters.map(async (m) => (await cluster.nodeClient(m)).ping()));
    },
    configGet: (name) =>
      Promise.all(cluster.masters.map(async (m) => settingOf(await (await cluster.nodeClient(m)).configGet(name), name))),
    async open(ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        try {
          await withDeadline(cluster.connect(), Math.max(deadline - Date.now(), 1), 'the cluster slots');
          watch.start();
          return;
        } catch (err) {
          if (cluster.isOpen) cluster.destroy();
          if (Date.now() >= deadline) {
            throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(String(err), { cause: err });
          }
          await new Promise((r) => setTimeout(r, Math.min(200, Math.max(deadline - Date.now(), 1))));
        }
      }
    },
    async close() {
      watch.stop();
      if (!cluster.isOpen) return;
      await withDeadline(cluster.close(), 2000, 'close').catch(() => cluster.destroy());
    },
  };
}

/** Keys SCAN looks at per call: few calls over a large keyspace, each still short. */
const SCAN_COUNT = 10_000;

/** A setting's value in CONFIG GET's reply (a map of name to value; empty for an unknown name). */
function settingOf(reply: Record<string, string>, name: string): string | undefined {
  return Object.hasOwn(reply, name) ? reply[name] : undefined;
}

function countOnline(replication: string): number {
  return replication.match(/^slave\d+:.*state=online/gm)?.length ?? 0;
}

/**
 * node-redis learns a new slot map only from MOVED/ASK replies
 * (https://github.com/redis/node-redis/issues/2806). After a master dies, its slots' commands keep
 * going to the dead address and never see a MOVED, so the client would never find the promoted
 * replica. This asks a live master for CLUSTER SLOTS every `topologyCheckMs` and after every node
 * error, and rediscovers when a slot range has a master the client does not route to. Rediscovery
 * empties the client-side cache, so it runs only on a real change.
 */
function watchTopology(cluster: ClusterClient, options: ConnectionOptions): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const check = async (): Promise<void> => {
    if (running || timer === undefined) return;
    running = true;
    try {
      for (const master of cluster.masters) {
        const client = master.client;
        if (client === undefined || !client.isReady) continue;
        const ranges = await withDeadline(client.clusterSlots(), options.connectTimeoutMs, 'CLUSTER SLOTS');
        const stale = ranges.some((r) => {
          const known = cluster.slots[r.from]?.master;
          return known === undefined || known.host !== r.master.host || known.port !== r.master.port;
        });
        if (stale) await cluster._slots.rediscover(client);
        return;
      }
      // no known master answers (all moved or restarted elsewhere): start over from the root nodes
      const any = cluster.masters[0]?.client;
      if (any !== undefined) await cluster._slots.rediscover(any);
    } catch (err) {
      options.onError(err as Error);
    } finally {
      running = false;
    }
  };
  const onNodeError = (): void => void check();
  return {
    start() {
      timer = setInterval(() => void check(), options.topologyCheckMs ?? 1000);
      timer.unref();
      cluster.on('node-error', onNodeError);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
      cluster.off('node-error', onNodeError);
    },
  };
}

/** Replies that mean "Redis cannot serve now", not "the command is wrong". */
const TRANSIENT_REPLY = /^(LOADING|BUSY |MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|READONLY|OOM)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** Whether `err` comes from Redis being unreachable (as opposed to a bug, e.g. a script error). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (err instanceof ErrorReply) return TRANSIENT_REPLY.test(err.message);
  if (
    err instanceof ClientOfflineError || err instanceof ClientClosedError || err instanceof SocketClosedUnexpectedlyError ||
    err instanceof ConnectionTimeoutError || err instanceof SocketTimeoutError || err instanceof TimeoutError ||
    err instanceof DisconnectsClientError || err instanceof ReconnectStrategyError
  ) {
    return true;
  }
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/** Rethrows connection failures as StoreUnavailableError and everything else unchanged. */
export function rethrow(err: unknown): never {
  if (err instanceof StoreUnavailableError || !isUnavailable(err)) throw err;
  throw new StoreUnavailableError(`redis unavailable: ${(err as Error).message}`, { cause: err });
}

/** Resolves once `client` is ready; throws StoreUnavailableError after `ms`. */
async function awaitReady(client: SingleClient, ms: number): Promise<void> {
  if (client.isReady) return;
  // not events.once: it would reject on the first 'error', and errors repeat while reconnecting
  await new Promise<void>((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new StoreUnavailableError(`redis not ready within ${ms} ms`));
    }, ms);
    client.once('ready', onReady);
  });
}

/** Maps connection failures of a command to StoreUnavailableError; `extraMs` extends its deadline. */
export type Guard = <T>(command: Promise<T>, extraMs?: number) => Promise<T>;

/**
 * A Guard that also fails a command Redis has not answered within `ms` (0: never). Without it a hung
 * Redis (stopped process, dropped network) would hold requests until TCP gives up, minutes later.
 * The command may still run afterwards; callers retry with compare-and-set and dedupe, so that is safe.
 */
export function deadlineGuard(ms: number): Guard {
  if (ms <= 0) return (command) => command.catch(rethrow);
  return (command, extraMs = 0) => withDeadline(command, ms + extraMs, 'a command');
}

/** `promise`, or StoreUnavailableError when it does not settle within `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`redis did not answer ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } catch (err) {
    return rethrow(err);
  } finally {
    clearTimeout(timer);
  }
}
