/**
 * A session on a server's inspector (started with --inspect on `port`), for the few calls a bench
 * makes: a full GC before a memory sample, a CPU profile of one phase (Profiler.start ... stop, in
 * one session: closing the session ends the profile).
 */
import { request, WebSocket } from 'undici';

export interface InspectorSession {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  close(): void;
}

export async function inspect(port: number): Promise<InspectorSession> {
  const res = await request(`http://127.0.0.1:${port}/json/list`);
  const [target] = (await res.body.json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const waiting = new Map<number, { resolve: (x: unknown) => void; reject: (e: Error) => void }>();
  ws.onmessage = (m) => {
    const reply = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const w = reply.id === undefined ? undefined : waiting.get(reply.id);
    if (w === undefined) return;
    waiting.delete(reply.id as number);
    if (reply.error !== undefined) w.reject(new Error(reply.error.message));
    else w.resolve(reply.result);
  };
  let next = 1;
  return {
    call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (x: unknown) => void, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => ws.close(),
  };
}

/** A full garbage collection (HeapProfiler.collectGarbage: the low-memory collection that also shrinks the young generation). */
export async function collectGarbage(port: number): Promise<void> {
  const session = await inspect(port);
  try {
    await session.call('HeapProfiler.collectGarbage');
  } finally {
    session.close();
  }
}
