/**
 * A lock on a TCP port number among the peregrine processes of one host, held while a server with
 * several event loops (src/app/workers.ts) serves the port. Those loops listen with SO_REUSEPORT, which
 * the kernel lets any other socket of the same user share, so proving the port free before listening
 * is a probe, not a lock: two servers started at the same moment both passed it and both served.
 *
 * The lock is a Unix socket in Linux's abstract namespace (`\0peregrine-port-<port>`): binding it is
 * atomic, only one process holds a name, the kernel lets it go when the process ends however it ends
 * (no stale lock file), and the namespace is per network namespace, as TCP ports are. Elsewhere than
 * Linux there is no such namespace and the lock is a no-op (the probe alone guards the port).
 */
import { createServer, type Server } from 'node:net';

export interface PortLock {
  /** Lets the port go; idempotent. */
  release(): Promise<void>;
}

/** Takes the lock of `port`, or rejects with `inUse` when another process holds it. */
export async function lockPort(port: number, inUse: () => Error): Promise<PortLock> {
  if (process.platform !== 'linux') return { release: () => Promise.resolve() };
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? inUse() : err));
    server.listen({ path: `\0peregrine-port-${port}` }, resolve);
  });
  server.unref();
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= new Promise((resolve) => server.close(() => resolve()));
      return released;
    },
  };
}
