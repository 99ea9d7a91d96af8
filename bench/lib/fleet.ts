import { FormData, request } from 'undici';
import type { WrkRequest } from './wrk.js';

/** scrypt hash of "admin", the shipped dev account. */
const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0=';

/** The tenant settings of serverConfig: minPollingTime 0 lifts the per-device poll limit (a few devices polled fast). */
const FAST_POLLING: Readonly<Record<string, string>> = { 'authentication.targettoken.enabled': 'true', pollingTime: "'00:05:00'", minPollingTime: "'00:00:00'" };

/**
 * config.yaml for a benchmark server: one tenant, target tokens on, quiet logs. `settings` are the
 * tenant's configuration values as YAML scalars (default: FAST_POLLING; pass only the token switch
 * for the production defaults, per-device poll limiter on).
 */
export function serverConfig(
  store: 'memory' | 'redis', redisUrl?: string, settings: Readonly<Record<string, string>> = FAST_POLLING, ddi: Readonly<Record<string, string>> = {},
): string {
  return [
    `store: { kind: ${store}${redisUrl ? `, redisUrl: '${redisUrl}'` : ''} }`,
    'log: { level: warn }',
    // the load comes from 127.0.0.1, which the poll limiter exempts by default (as hawkBit's DoS filter): measure it paced
    `ddi: { ${Object.entries(ddi).map(([k, v]) => `${k}: ${v}, `).join('')}pollLimiter: { exemptCidrs: [] } }`,
    'tenants:',
    '  - name: DEFAULT',
    `    users: [{ username: admin, password: '${ADMIN_HASH}', permissions: [ALL] }]`,
    `    config: { ${Object.entries(settings).map(([k, v]) => `${k}: ${v}`).join(', ')} }`,
    '',
  ].join('\n');
}

/** Basic credentials of the shipped dev account, for the benchmarks' Management calls. */
export const ADMIN_AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;

export interface Api {
  post(path: string, json: unknown): Promise<unknown>;
  /** GET answering 200 with JSON (anything else throws, naming the path and status). */
  get<T>(path: string): Promise<T>;
}

export function api(baseUrl: string): Api {
  const auth = ADMIN_AUTH;
  return {
    async get<T>(path: string): Promise<T> {
      const res = await request(baseUrl + path, { headers: { authorization: auth } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    },
    async post(path, json) {
      const res = await request(baseUrl + path, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(json) });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      return text ? (JSON.parse(text) as unknown) : undefined;
    },
  };
}

/** Creates `n` targets dev-0..dev-(n-1) in arrays of 500; returns their tokens. */
export async function createDevices(a: Api, n: number, from = 0): Promise<string[]> {
  const tokens = Array.from({ length: n }, (_, i) => `tok${String(from + i).padStart(29, '0')}`);
  for (let i = 0; i < n; i += 500) {
    await a.post('/rest/v1/targets', tokens.slice(i, i + 500).map((securityToken, j) => ({ controllerId: `dev-${from + i + j}`, name: `dev-${from + i + j}`, securityToken })));
  }
  return tokens;
}

/** Every device polls once (registration, last-poll record), 64 at a time. */
export async function pollEach(baseUrl: string, tokens: readonly string[], tenant = 'DEFAULT'): Promise<void> {
  await pollAll(baseUrl, tokens, tenant);
}

/** What each device's poll answered. */
export interface Polled {
  readonly etags: string[];
  readonly bodies: string[];
}

/** Every device polls once, 64 at a time; returns each answer's ETag and body. */
export async function pollAll(baseUrl: string, tokens: readonly string[], tenant = 'DEFAULT'): Promise<Polled> {
  const out: Polled = { etags: new Array<string>(tokens.length), bodies: new Array<string>(tokens.length) };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tokens.length) {
      const i = next++;
      const res = await request(`${baseUrl}/${tenant}/controller/v1/dev-${i}`, { headers: { authorization: `TargetToken ${tokens[i]}` } });
      out.bodies[i] = await res.body.text();
      out.etags[i] = String(res.headers['etag'] ?? '');
      if (res.statusCode !== 200) throw new Error(`poll of dev-${i} answered ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return out;
}

/** Each device's poll as a wrk request (its path and TargetToken; with `etags`, If-None-Match each device's ETag). */
export const pollRequests = (tokens: readonly string[], etags?: readonly string[], tenant = 'DEFAULT'): WrkRequest[] => tokens.map((t, i) => ({
  path: `/${tenant}/controller/v1/dev-${i}`, headers: { Authorization: `TargetToken ${t}`, ...(etags ? { 'If-None-Match': etags[i]! } : {}) },
}));

/** Calls `read` every `everyMs` until `ok`; returns seconds since `from` (a performance.now() time). */
export async function until<T>(
  what: string, read: () => Promise<T>, ok: (v: T) => boolean, from: number, limitS = 600, everyMs = 10,
): Promise<number> {
  for (;;) {
    const v = await read();
    if (ok(v)) return (performance.now() - from) / 1000;
    if (performance.now() - from > limitS * 1000) throw new Error(`${what}: not reached within ${limitS} s; last ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A one-module release assigned to dev-0..dev-(n-1): each device then has an open action. With
 * `artifact`, the module carries it as `bench.bin` (uploaded to `baseUrl` before the assignment).
 */
export async function createReleaseAndAssign(
  a: Api, n: number, artifact?: { readonly baseUrl: string; readonly bytes: Buffer },
): Promise<{ moduleId: number; distributionSetId: number }> {
  const [smType] = (await a.post('/rest/v1/softwaremoduletypes', [{ key: 'bench-os', name: 'Bench OS', maxAssignments: 1 }])) as { id: number }[];
  const [dsType] = (await a.post('/rest/v1/distributionsettypes', [{ key: 'bench', name: 'Bench', mandatorymodules: [{ id: smType!.id }] }])) as { id: number }[];
  const [sm] = (await a.post('/rest/v1/softwaremodules', [{ name: 'bench-fw', version: '1.0', type: 'bench-os' }])) as { id: number }[];
  const [ds] = (await a.post('/rest/v1/distributionsets', [{ name: 'bench-release', version: '1.0', type: 'bench', modules: [{ id: sm!.id }] }])) as { id: number }[];
  void dsType;
  if (artifact !== undefined) await uploadArtifact(artifact.baseUrl, sm!.id, 'bench.bin', artifact.bytes);
  for (let i = 0; i < n; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ id: `dev-${i + j}`, type: 'soft' }));
    await a.post(`/rest/v1/distributionsets/${ds!.id}/assignedTargets`, chunk);
  }
  return { moduleId: sm!.id, distributionSetId: ds!.id };
}

async function uploadArtifact(baseUrl: string, moduleId: number, fileName: string, bytes: Buffer): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const res = await request(`${baseUrl}/rest/v1/softwaremodules/${moduleId}/artifacts`, {
    method: 'POST', headers: { authorization: ADMIN_AUTH }, body: form,
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`artifact upload answered ${res.statusCode}: ${text.slice(0, 300)}`);
}
