/**
 * Prepares a tenant over the Management API so a scenario is self-contained: switches on the device
 * authentication mode the scenario uses and, for target tokens, creates the targets with known tokens.
 */
import { request } from 'undici';

export interface AdminClient {
  readonly server: string;
  readonly user: string;
  readonly password: string;
}

export function adminClient(server: string, credentials: string): AdminClient {
  const i = credentials.indexOf(':');
  if (i < 1) throw new Error('admin credentials must be user:password');
  return { server, user: credentials.slice(0, i), password: credentials.slice(i + 1) };
}

export async function mgmt(a: AdminClient, method: 'GET' | 'PUT' | 'POST', path: string, json?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await request(new URL(path, a.server), {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${a.user}:${a.password}`).toString('base64')}`,
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  const text = await res.body.text();
  let body: unknown = text;
  try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
  return { status: res.statusCode, body };
}

export async function setConfig(a: AdminClient, key: string, value: unknown): Promise<void> {
  const r = await mgmt(a, 'PUT', `/rest/v1/system/configs/${key}`, { value });
  if (r.status !== 200 && r.status !== 204) throw new Error(`PUT system/configs/${key} answered ${r.status}: ${JSON.stringify(r.body)}`);
}

export async function enableGatewayToken(a: AdminClient, token: string): Promise<void> {
  await setConfig(a, 'authentication.gatewaytoken.key', token);
  await setConfig(a, 'authentication.gatewaytoken.enabled', true);
}

export function targetTokenOf(token: string, controllerId: string): string {
  return `${token}-${controllerId}`.slice(0, 128);
}

/** Enables target-token auth and makes sure every device exists with the token `targetTokenOf(...)`. */
export async function prepareTargetTokens(a: AdminClient, token: string, controllerIds: readonly string[]): Promise<void> {
  await setConfig(a, 'authentication.targettoken.enabled', true);
  for (let i = 0; i < controllerIds.length; i += 100) {
    const batch = controllerIds.slice(i, i + 100);
    const body = batch.map((id) => ({ controllerId: id, name: id, securityToken: targetTokenOf(token, id) }));
    const r = await mgmt(a, 'POST', '/rest/v1/targets', body);
    if (r.status === 201) continue;
    if (r.status !== 409) throw new Error(`POST targets answered ${r.status}: ${JSON.stringify(r.body)}`);
    // Some exist already (an earlier run): create or update them one by one.
    for (const t of body) {
      const c = await mgmt(a, 'POST', '/rest/v1/targets', [t]);
      if (c.status === 201) continue;
      const u = await mgmt(a, 'PUT', `/rest/v1/targets/${encodeURIComponent(t.controllerId)}`, { securityToken: t.securityToken });
      if (u.status !== 200) throw new Error(`PUT targets/${t.controllerId} answered ${u.status}: ${JSON.stringify(u.body)}`);
    }
  }
}
