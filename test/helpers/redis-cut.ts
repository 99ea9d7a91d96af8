/**
 * A TCP proxy in front of Redis that cuts a process off between two of its commands: it forwards each
 * client's commands one whole RESP command at a time and, once `after` commands containing `marker`
 * went through, forwards nothing more from any client. Redis has executed exactly the commands before
 * the cut, as when the process dies there; the test then kills the process (SIGKILL) and restarts it.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface RedisCut {
  /** The URL a process under test connects to instead of Redis. */
  readonly url: string;
  /** Resolves when the cut happened. */
  readonly cut: Promise<void>;
  /** Commands containing the marker forwarded so far. */
  seen(): number;
  close(): Promise<void>;
}

/** The length of the first whole command in `buf` (a RESP array of bulk strings), or 0 when incomplete. */
function commandLength(buf: Buffer): number {
  if (buf.length === 0) return 0;
  if (buf[0] !== 0x2a) throw new Error(`not a RESP array: ${JSON.stringify(buf.subarray(0, 20).toString())}`);
  let at = buf.indexOf('\r\n');
  if (at < 0) return 0;
  const parts = Number(buf.subarray(1, at).toString());
  at += 2;
  for (let i = 0; i < parts; i++) {
    const end = buf.indexOf('\r\n', at);
    if (end < 0) return 0;
    const len = Number(buf.subarray(at + 1, end).toString());
    at = end + 2 + len + 2;
    if (at > buf.length) return 0;
  }
  return at;
}

export async function cutRedisAfter(redisUrl: string, marker: string, after: number): Promise<RedisCut> {
  const target = new URL(redisUrl);
  const needle = Buffer.from(marker);
  const sockets = new Set<Socket>();
  let seen = 0;
  let isCut = false;
  let onCut: () => void = () => {};
  const cut = new Promise<void>((resolve) => (onCut = resolve));
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    client.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (isCut) return;
        const n = commandLength(pending);
        if (n === 0) return;
        const command = pending.subarray(0, n);
        pending = pending.subarray(n);
        upstream.write(command);
        if (command.includes(needle) && ++seen >= after) {
          isCut = true;
          onCut();
        }
      }
    });
    upstream.on('data', (data: Buffer) => client.write(data));
    const close = (): void => { client.destroy(); upstream.destroy(); };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    cut,
    seen: () => seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
