/**
 * The signed-in operator: loaded from `GET /ui/api/session`, set by sign-in, cleared by sign-out or by
 * any 401. Views read it with useSession(); the API client reads the CSRF token with csrfToken().
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorFrom, readReply } from './api-error.js';
import { navigate } from './router.js';

/** The JSON of /ui/api/login and /ui/api/session. */
export interface SessionInfo {
  readonly tenant: string;
  readonly username: string;
  readonly permissions: readonly string[];
  readonly csrf: string;
  readonly source?: string;
  readonly expiresAt?: number | string;
}

export interface Session {
  readonly tenant: string;
  readonly username: string;
  readonly permissions: Set<string>;
  /** True when any of the permissions is held ('ALL' grants everything). */
  can(permission: string | readonly string[]): boolean;
  readonly csrf: string;
  readonly signedIn: boolean;
}

/** 'unknown' until the first /ui/api/session answer. */
type State = { readonly status: 'unknown' } | { readonly status: 'signed-out' } | { readonly status: 'signed-in'; readonly session: Session };

let state: State = { status: 'unknown' };
const listeners = new Set<(s: State) => void>();

function set(next: State): void {
  state = next;
  for (const listener of listeners) listener(next);
}

function toSession(info: SessionInfo): Session {
  const permissions = new Set(info.permissions);
  return {
    tenant: info.tenant,
    username: info.username,
    permissions,
    csrf: info.csrf,
    signedIn: true,
    can(permission) {
      if (permissions.has('ALL')) return true;
      const wanted = typeof permission === 'string' ? [permission] : permission;
      return wanted.some((p) => permissions.has(p));
    },
  };
}

const NOBODY: Session = { tenant: '', username: '', permissions: new Set(), csrf: '', signedIn: false, can: () => false };

/** The current session (a permission-less one while signed out); re-renders on sign-in and sign-out. */
export function useSession(): Session {
  const current = useSessionState();
  return current.status === 'signed-in' ? current.session : NOBODY;
}

/** The raw state, for the shell: whether the session is known yet and whether one exists. */
export function useSessionState(): State {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => { listeners.delete(setCurrent); };
  }, []);
  return current;
}

/** The token for X-CSRF-Token on unsafe methods. */
export function csrfToken(): string | undefined {
  return state.status === 'signed-in' ? state.session.csrf : undefined;
}

async function post(path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = csrfToken();
  if (token !== undefined) headers['X-CSRF-Token'] = token;
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check the connection and try again.');
  }
  const reply = await readReply(res);
  if (!res.ok) throw errorFrom(res.status, res.statusText, reply);
  return reply;
}

/** Asks the server who is signed in (the cookie); called once at start. */
export async function loadSession(): Promise<void> {
  try {
    const res = await fetch('/ui/api/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.ok) set({ status: 'signed-in', session: toSession((await res.json()) as SessionInfo) });
    else set({ status: 'signed-out' });
  } catch {
    set({ status: 'signed-out' });
  }
}

/** Signs in with a password; rejects with the server's message on wrong credentials. */
export async function signIn(username: string, password: string, tenant?: string): Promise<void> {
  const body = tenant === undefined || tenant === '' ? { username, password } : { username, password, tenant };
  const info = (await post('/ui/api/login', body)) as SessionInfo;
  set({ status: 'signed-in', session: toSession(info) });
}

/** Ends the session on the server (best effort) and shows the sign-in page. */
export async function signOut(): Promise<void> {
  try {
    await post('/ui/api/logout');
  } catch {
    // the cookie is cleared or already invalid: either way the operator is signed out here
  }
  set({ status: 'signed-out' });
  navigate('/login');
}

/** A call answered 401: the session ended on the server; the shell shows the sign-in page, then this page again. */
export function sessionExpired(): void {
  if (state.status !== 'signed-out') set({ status: 'signed-out' });
}
