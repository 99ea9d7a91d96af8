/**
 * Live-event subscribers for the events benchmark, in their own process (forked by subscribers.ts,
 * which drives it over IPC): N Server-Sent Events streams on one undici Pool allowing N connections,
 * each parsed as it arrives. Per journal entry (the message carrying `id: <ms>-<seq>`) it records the
 * delivery lag, receive time minus the entry's commit time (same machine clock), in whole ms; it
 * counts messages and bytes and reports its own CPU, so the bench can tell whether it kept up.
 *   node dist/bench/lib/sse-subscribers.js <events URL> <Authorization header>
 */
import { Pool } from 'undici';
import type { SubscriberCommand, SubscriberReply } from './subscribers.js';

const [url = '', authorization = ''] = process.argv.slice(2);
const target = new URL(url);
let pool: Pool | undefined;
const streams = new Set<{ destroy(): unknown }>();

/** Counted since the last reset. */
let lag = new Map<number, number>();
let messages = 0;
let entries = 0;
let bytes = 0;
/** Streams that ended while they should have stayed open (the server closed them). */
let ended = 0;
let since = performance.now();
let cpuSince = process.cpuUsage();

function reset(): void {
  lag = new Map();
  messages = 0;
  entries = 0;
  bytes = 0;
  ended = 0;
  since = performance.now();
  cpuSince = process.cpuUsage();
}

/** One SSE message (the text between blank lines): counts it; an entry's last message gives the lag. */
function message(text: string, connected: () => void): void {
  if (text.startsWith(':')) return; // a comment: the connect line or a keep-alive
  if (!text.startsWith('id: ')) {
    messages++;
    return;
  }
  if (text.includes('\nevent: snapshot\n')) return connected();
  messages++;
  entries++;
  const ms = Number(text.slice(4, text.indexOf('-', 4)));
  const late = Math.max(0, Date.now() - ms);
  lag.set(late, (lag.get(late) ?? 0) + 1);
}

/** Opens one stream; resolves when its snapshot came (true) or it failed (false). */
function open(p: Pool): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (ok: boolean): void => {
      if (!settled) {
        settled = true;
        resolve(ok);
      }
    };
    p.request({
      path: target.pathname + target.search, method: 'GET', headers: { authorization, accept: 'text/event-stream' },
      headersTimeout: 60_000, bodyTimeout: 0,
    }).then((res) => {
      if (res.statusCode !== 200) {
        res.body.resume();
        return settle(false);
      }
      const body = res.body;
      streams.add(body);
      body.setEncoding('utf8');
      let rest = '';
      body.on('data', (chunk: string) => {
        bytes += chunk.length;
        const text = rest + chunk;
        let from = 0;
        for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n', from)) {
          message(text.slice(from, at), () => settle(true));
          from = at + 2;
        }
        rest = text.slice(from);
      });
      const gone = (): void => {
        if (streams.delete(body)) ended++;
        settle(false);
      };
      body.on('end', gone);
      body.on('error', gone);
    }, () => settle(false));
  });
}

async function connect(n: number): Promise<SubscriberReply> {
  const began = performance.now();
  pool ??= new Pool(target.origin, { connections: n, pipelining: 1, keepAliveTimeout: 600_000 });
  // a stream that failed to open (a connect timed out on a loaded machine) is tried again, three times in all
  const results = await Promise.all(Array.from({ length: n }, async () => {
    for (let tries = 0; tries < 3; tries++) if (await open(pool!)) return true;
    return false;
  }));
  return { op: 'connected', connected: results.filter(Boolean).length, ms: Math.round(performance.now() - began) };
}

async function close(): Promise<SubscriberReply> {
  for (const s of [...streams]) {
    streams.delete(s);
    s.destroy();
  }
  await pool?.destroy();
  pool = undefined;
  return { op: 'closed' };
}

function report(): SubscriberReply {
  const seconds = (performance.now() - since) / 1000;
  const cpu = process.cpuUsage(cpuSince);
  return {
    op: 'report', open: streams.size, ended, messages, entries, bytes, seconds,
    cpu: (cpu.user + cpu.system) / 1e6 / seconds, lag: [...lag],
  };
}

process.on('message', (cmd: SubscriberCommand) => {
  const reply = (r: SubscriberReply | Promise<SubscriberReply>): void => void Promise.resolve(r).then((x) => process.send?.(x));
  switch (cmd.op) {
    case 'connect': return reply(connect(cmd.n));
    case 'reset':
      reset();
      return reply({ op: 'reset' });
    case 'report': return reply(report());
    case 'close': return reply(close());
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ op: 'ready' } satisfies SubscriberReply);
