/**
 * The console's one way to call the server: JSON over fetch with the session cookie, the CSRF token on
 * unsafe methods, the server's `message` as the error text, and a 401 that sends the user to sign in.
 */
import { ApiError, errorFrom, readReply } from './api-error.js';
import { csrfToken, sessionExpired } from './session.js';

export { ApiError };

export type Method = 'POST' | 'PUT' | 'DELETE';

/** hawkBit paging parameters; `q` is FIQL. */
export interface PageQuery {
  readonly offset?: number;
  readonly limit?: number;
  readonly sort?: string;
  readonly q?: string;
}

export interface Page<T> {
  readonly content: T[];
  readonly total: number;
}

/** Builds `path?offset=..&limit=..` from the parameters that are set (keeps a query already in `path`). */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  if (text === '') return path;
  return path + (path.includes('?') ? '&' : '?') + text;
}

async function call<T>(method: 'GET' | Method, path: string, body?: unknown): Promise<T | undefined> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken();
    if (token !== undefined) headers['X-CSRF-Token'] = token;
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check the connection and try again.');
  }
  const parsed = await readReply(res);
  if (res.status === 401) sessionExpired();
  if (!res.ok) throw errorFrom(res.status, res.statusText, parsed);
  return parsed as T | undefined;
}

export const api = {
  /** GET a JSON resource. */
  async get<T>(path: string): Promise<T> {
    return (await call<T>('GET', path)) as T;
  },
  /** POST/PUT/DELETE with an optional JSON body; resolves to the parsed reply, undefined when empty. */
  send<T>(method: Method, path: string, body?: unknown): Promise<T | undefined> {
    return call<T>(method, path, body);
  },
  /** One page of a hawkBit list (`{content,total,size}`). */
  async page<T>(path: string, query: PageQuery = {}): Promise<Page<T>> {
    const reply = await call<{ content?: T[]; total?: number }>('GET', withQuery(path, { offset: query.offset, limit: query.limit, sort: query.sort, q: query.q }));
    const content = reply?.content ?? [];
    return { content, total: reply?.total ?? content.length };
  },
};
