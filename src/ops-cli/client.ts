/**
 * The operator CLI's side of HTTP: the server URL and credentials (from the environment only),
 * GET a JSON document, open an event stream, and every failure as one line for people with the exit
 * code it deserves (2 for bad input, 1 for the rest).
 */
import { request } from 'undici';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A failure to print as `peregrine: <message>` and exit with `exitCode`. */
export class OpsError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

export interface Connection {
  /** The server's base URL without a trailing slash (a path prefix is kept). */
  readonly base: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * `--url`, else PEREGRINE_URL, else the default; PEREGRINE_TOKEN (bearer) or PEREGRINE_USER with
 * PEREGRINE_PASSWORD (Basic). No credentials at all sends none (the server answers 401).
 */
export function connectionFrom(url: string | undefined, env: NodeJS.ProcessEnv): Connection {
  const base = url ?? env['PEREGRINE_URL'] ?? DEFAULT_URL;
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) throw new OpsError(`not an http(s) URL: ${base}`, 2);
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = env['PEREGRINE_TOKEN'];
  const user = env['PEREGRINE_USER'];
  if (token !== undefined && token !== '') headers['authorization'] = `Bearer ${token}`;
  else if (user !== undefined && user !== '') {
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${env['PEREGRINE_PASSWORD'] ?? ''}`).toString('base64')}`;
  }
  return { base: base.replace(/\/+$/, ''), headers };
}

type Body = Awaited<ReturnType<typeof request>>['body'];

/** The answer's status and body stream; transport failures become "cannot reach URL: CODE". */
async function send(
  conn: Connection, path: string, headers: Record<string, string>, signal?: AbortSignal,
): Promise<{ status: number; body: Body }> {
  try {
    const res = await request(`${conn.base}${path}`, { method: 'GET', headers: { ...conn.headers, ...headers }, signal });
    return { status: res.statusCode, body: res.body };
  } catch (e) {
    if (signal?.aborted === true) throw e;
    throw new OpsError(`cannot reach ${conn.base}: ${causeOf(e)}`, 1);
  }
}

function causeOf(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = err.code ?? err.cause?.code;
  return typeof code === 'string' && code !== '' ? code : String(err.message ?? e);
}

/** The error a refused request stands for: the server's `message` in one line (401: wrong credentials). */
async function refusal(status: number, body: Body): Promise<OpsError> {
  const text = await body.text().catch(() => '');
  const exitCode = status === 400 || status === 401 || status === 404 ? 2 : 1;
  if (status === 401) return new OpsError('wrong credentials (set PEREGRINE_USER and PEREGRINE_PASSWORD, or PEREGRINE_TOKEN)', 2);
  let message: unknown;
  try {
    message = (JSON.parse(text) as { message?: unknown }).message;
  } catch {
    message = undefined;
  }
  const line = typeof message === 'string' && message !== '' ? message : text.trim() || `HTTP ${status}`;
  return new OpsError(`${line.replace(/\s+/g, ' ')} (HTTP ${status})`, exitCode);
}

/** GET `path` (with its query) as JSON; anything but 200 is an OpsError. */
export async function getJson<T>(conn: Connection, path: string, signal?: AbortSignal): Promise<T> {
  const res = await send(conn, path, {}, signal);
  if (res.status !== 200) throw await refusal(res.status, res.body);
  return (await res.body.json()) as T;
}

/** The event stream at `path`, or 'unavailable' when the server has none (404/501: an older server or hawkBit). */
export async function openStream(conn: Connection, path: string, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | 'unavailable'> {
  const res = await send(conn, path, { accept: 'text/event-stream' }, signal);
  if (res.status === 404 || res.status === 501) {
    await res.body.dump().catch(() => undefined);
    return 'unavailable';
  }
  if (res.status !== 200) throw await refusal(res.status, res.body);
  return res.body;
}

/** Every page of a hawkBit list (`{content, total}`), `pageSize` at a time, until `max` rows or the end. */
export async function getAll<T>(
  conn: Connection, path: string, query: URLSearchParams, max = Infinity, pageSize = 100,
): Promise<{ rows: T[]; total: number }> {
  const rows: T[] = [];
  for (;;) {
    const q = new URLSearchParams(query);
    q.set('offset', String(rows.length));
    q.set('limit', String(Math.min(pageSize, max - rows.length)));
    const page = await getJson<{ content?: T[]; total?: number }>(conn, `${path}?${q.toString()}`);
    const content = page.content ?? [];
    rows.push(...content);
    const total = page.total ?? rows.length;
    if (content.length === 0 || rows.length >= total || rows.length >= max) return { rows, total };
  }
}
