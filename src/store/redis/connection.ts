import {
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, createClient, DisconnectsClientError, ErrorReply,
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
}

/**
 * A RESP3 client with our scripts. Commands fail at once while the connection is down (no offline
 * queue) so callers answer 503 instead of piling up work; the client reconnects with capped
 * exponential backoff forever, so the server recovers by itself when Redis returns.
 */
export function createConnection(url: string, options: ConnectionOptions) {
  const client = createClient({
    url,
    RESP: 3,
    scripts: SCRIPTS,
    disableOfflineQueue: true,
    ...(options.cache ? { clientSideCache: options.cache } : {}),
    socket: {
      connectTimeout: options.connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 16), options.reconnectMaxDelayMs) + Math.floor(Math.random() * 50),
    },
  });
  // without a listener, an 'error' event would crash the process on the first disconnect
  client.on('error', (err: Error) => options.onError(err));
  return client;
}

export type RedisConnection = ReturnType<typeof createConnection>;

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
export async function awaitReady(client: RedisConnection, ms: number): Promise<void> {
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
