/** Shared by the sign-in tests: a password login and what a browser would send back. */
import { expect } from 'vitest';
import { http } from '../../helpers/server.js';

export interface SignedIn {
  /** `peregrine_session=...`, ready for a Cookie header. */
  readonly cookie: string;
  readonly csrf: string;
  readonly setCookie: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export const ERROR_401 = { errorCode: 'hawkbit.server.error.unauthorized', exceptionClass: 'org.springframework.security.authentication.BadCredentialsException' };
export const ERROR_403 = {
  errorCode: 'hawkbit.server.error.insufficientPermission', exceptionClass: 'org.eclipse.hawkbit.im.authentication.InsufficientPermissionException',
};

export async function login(url: string, username = 'admin', password = 'admin', tenant?: string): Promise<SignedIn> {
  const res = await http(url).post('/ui/api/login', { json: { username, password, ...(tenant === undefined ? {} : { tenant }) } });
  expect(res.status, res.text).toBe(200);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  expect(cookie).toMatch(/^peregrine_session=[\w-]+\.[\w-]+$/);
  return { cookie, csrf: res.json().csrf, setCookie, json: res.json() };
}

/** A cookie value with its payload changed by `edit` and the old signature kept. */
export function tamper(cookie: string, edit: (payload: Record<string, unknown>) => void): string {
  const [name, value = ''] = cookie.split('=');
  const [body = '', mac] = value.split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  edit(payload);
  return `${name}=${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
}
