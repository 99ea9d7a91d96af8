/**
 * The Management API side of a run: reach the server (retrying with backoff), check the admin
 * credentials, write tenant configuration, provision targets with their tokens in bulk, create a
 * distribution set with artifacts, assign it, and create and drive a rollout (reference §3).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FormData, request } from 'undici';
import { targetTokenOf, type GroupRuntime } from './group.js';
import { serverBase } from './scenario.js';

/** The server could not be reached at all (exit 1). */
export class UnreachableError extends Error {}
/** The server rejected the admin credentials (exit 2: bad input). */
export class AdminAuthError extends Error {}
/** A Management call answered something else than it should. */
export class MgmtError extends Error {}

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** What the Management side saw of the server going away and coming back. */
export interface Outages {
  /** Calls that found no server (each retry counts). */
  failures: number;
  /** Times the server answered again after calls had failed. */
  recoveries: number;
  /** When it last answered again after failing (ms since epoch). */
  backAt?: number;
  downSince?: number;
}

export class Mgmt {
  private readonly authorization: string;
  readonly user: string;
  readonly outages: Outages = { failures: 0, recoveries: 0 };
  private readonly base: ReturnType<typeof serverBase>;

  constructor(readonly server: string, credentials: string, private readonly log: (line: string) => void) {
    const i = credentials.indexOf(':');
    this.user = credentials.slice(0, i);
    this.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    this.base = serverBase(server);
  }

  /**
   * One call; 429/502/503 and lost connections are retried with backoff (250 ms doubling, `retries`
   * times). A server still not answering is an UnreachableError naming the call and the cause.
   */
  async call(method: Method, path: string, body?: unknown, form?: FormData, retries = 3): Promise<{ status: number; json: unknown }> {
    for (let attempt = 0; ; attempt++) {
      let res;
      try {
        res = await request(`${this.base.origin}${this.base.prefix}${path}`, {
          method,
          headers: { authorization: this.authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
        });
      } catch (e) {
        this.outages.failures++;
        this.outages.downSince ??= Date.now();
        if (attempt >= retries) throw new UnreachableError(`${method} ${path}: cannot reach ${this.server}: ${causeOf(e)}`, { cause: e });
        await sleep(250 * 2 ** attempt);
        continue;
      }
      if (this.outages.downSince !== undefined) {
        this.outages.downSince = undefined;
        this.outages.recoveries++;
        this.outages.backAt = Date.now();
      }
      const text = await res.body.text().catch(() => '');
      let json: unknown = text;
      try { json = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
      if ([429, 502, 503].includes(res.statusCode) && attempt < retries) { await sleep(250 * 2 ** attempt); continue; }
      return { status: res.statusCode, json };
    }
  }

  async expect(method: Method, path: string, ok: readonly number[], body?: unknown, form?: FormData): Promise<unknown> {
    const r = await this.call(method, path, body, form);
    if (!ok.includes(r.status)) throw new MgmtError(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json)?.slice(0, 400)}`);
    return r.json;
  }

  /** Reaches the server (attempts with exponential backoff) and checks the credentials with GET /rest/v1/userinfo. */
  async check(attempts: number): Promise<void> {
    const probe = (): Promise<number> => this.call('GET', '/rest/v1/userinfo', undefined, undefined, 0).then((r) => r.status);
    const status = await reach(this.server, attempts, this.log, probe);
    if (status === 401 || status === 403) {
      throw new AdminAuthError(`admin credentials rejected by ${this.server} (${status}) for user '${this.user}'`);
    }
    if (status !== 200) throw new MgmtError(`GET /rest/v1/userinfo answered ${status}`);
  }

  /** What each configuration key the run wrote held before (first write wins), for restoreConfig. */
  private readonly previous = new Map<string, { readonly value: unknown; readonly global: boolean }>();

  /** Writes a tenant configuration value, remembering the one it replaces the first time. */
  async setConfig(key: string, value: unknown): Promise<void> {
    if (!this.previous.has(key)) {
      const was = await this.expect('GET', `/rest/v1/system/configs/${encodeURIComponent(key)}`, [200]) as { value?: unknown; global?: boolean };
      this.previous.set(key, { value: was.value, global: was.global === true });
    }
    await this.expect('PUT', `/rest/v1/system/configs/${encodeURIComponent(key)}`, [200, 204], { value });
  }

  /**
   * Puts back what setConfig replaced, newest first (pollingTime before minPollingTime): a value the
   * tenant had set is written again, a default is reset to the default. Answers the keys restored.
   */
  async restoreConfig(): Promise<string[]> {
    const keys = [...this.previous.keys()].reverse();
    for (const key of keys) {
      const was = this.previous.get(key)!;
      const path = `/rest/v1/system/configs/${encodeURIComponent(key)}`;
      if (was.global) await this.expect('DELETE', path, [200, 204, 404]);
      else await this.expect('PUT', path, [200, 204], { value: was.value });
    }
    this.previous.clear();
    return keys;
  }

  /** Switches on the authentication mode the groups use. */
  async enableAuth(groups: readonly GroupRuntime[], fleetAuth: GroupRuntime['spec']['auth'] & object): Promise<void> {
    const modes = new Map<string, NonNullable<GroupRuntime['spec']['auth']>>();
    for (const g of groups) { const a = g.spec.auth ?? fleetAuth; modes.set(a.mode === 'gateway' ? `gateway:${a.token}` : a.mode, a); }
    for (const a of modes.values()) {
      if (a.mode === 'gateway') {
        await this.setConfig('authentication.gatewaytoken.key', a.token);
        await this.setConfig('authentication.gatewaytoken.enabled', true);
      } else if (a.mode === 'target') await this.setConfig('authentication.targettoken.enabled', true);
      else if (a.mode === 'anonymous') await this.setConfig('anonymous.download.enabled', true); // polls need the server's switch
      else if (a.mode === 'certificate') {
        await this.setConfig('authentication.header.enabled', true);
        await this.setConfig('authentication.header.authority', a.issuerHash);
      }
    }
  }

  /** Creates the targets of target-token groups with their tokens, 500 per request, 4 requests at a time. */
  async provisionTargets(groups: readonly GroupRuntime[], fleetAuth: GroupRuntime['spec']['auth'] & object): Promise<number> {
    const batches: { controllerId: string; name: string; securityToken: string }[][] = [];
    for (const g of groups) {
      const a = g.spec.auth ?? fleetAuth;
      if (a.mode !== 'target' || !a.provision) continue;
      for (let i = 0; i < g.spec.count; i += 500) {
        const batch = [];
        for (let n = i; n < Math.min(g.spec.count, i + 500); n++) {
          const id = g.idOf(n);
          batch.push({ controllerId: id, name: id, securityToken: targetTokenOf(a.tokenPrefix, id) });
        }
        batches.push(batch);
      }
    }
    let next = 0;
    let created = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        const r = await this.call('POST', '/rest/v1/targets', batch);
        if (r.status === 201) { created += batch.length; continue; }
        if (r.status !== 409) throw new MgmtError(`POST /rest/v1/targets answered ${r.status}: ${JSON.stringify(r.json)?.slice(0, 400)}`);
        // some exist (an earlier run): create or update one by one
        for (const t of batch) {
          const c = await this.call('POST', '/rest/v1/targets', [t]);
          if (c.status === 201) { created++; continue; }
          await this.expect('PUT', `/rest/v1/targets/${encodeURIComponent(t.controllerId)}`, [200], { securityToken: t.securityToken });
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    return created;
  }

  /** A software module of type os with random artifacts and a distribution set of type os holding it; answers the set's id. */
  async createDistributionSet(o: { name: string; version?: string; artifacts: number; artifactBytes: number }): Promise<number> {
    const version = o.version ?? `${Date.now()}`;
    const module = { name: o.name, version, type: 'os', vendor: 'peregrine-sim' };
    const [sm] = await this.expect('POST', '/rest/v1/softwaremodules', [201], [module]) as { id: number }[];
    for (let i = 0; i < o.artifacts; i++) {
      const form = new FormData();
      form.append('file', new Blob([randomBytes(o.artifactBytes)]), `image-${i}.bin`);
      await this.expect('POST', `/rest/v1/softwaremodules/${sm!.id}/artifacts`, [201], undefined, form);
    }
    const set = { name: o.name, version, type: 'os', modules: [{ id: sm!.id }] };
    const [ds] = await this.expect('POST', '/rest/v1/distributionsets', [201], [set]) as { id: number }[];
    return ds!.id;
  }

  async assign(dsId: number, ids: readonly string[], options: Record<string, unknown>): Promise<void> {
    for (let i = 0; i < ids.length; i += 5000) {
      const body = ids.slice(i, i + 5000).map((id) => ({ id, ...options }));
      await this.expect('POST', `/rest/v1/distributionsets/${dsId}/assignedTargets`, [200], body);
    }
  }

  async createRollout(body: Record<string, unknown>): Promise<number> {
    const r = await this.expect('POST', '/rest/v1/rollouts', [201], body) as { id: number };
    return r.id;
  }

  async rolloutAction(id: number, action: 'start' | 'pause' | 'resume' | 'stop'): Promise<void> {
    await this.expect('POST', `/rest/v1/rollouts/${id}/${action}`, [200, 204]);
  }

  async rollout(id: number): Promise<RolloutView> {
    const r = await this.expect('GET', `/rest/v1/rollouts/${id}`, [200]) as RolloutView;
    return r;
  }

  /** The rollout's deploy groups with their counts per status (the full representation). */
  async rolloutGroups(id: number): Promise<readonly RolloutGroupView[]> {
    const r = await this.expect('GET', `/rest/v1/rollouts/${id}/deploygroups?limit=500&representation=full`, [200]) as {
      content?: RolloutGroupView[];
    };
    return r.content ?? [];
  }

  async countTargets(q: string): Promise<number> {
    const r = await this.expect('GET', `/rest/v1/targets?limit=1&q=${encodeURIComponent(q)}`, [200]) as { total: number };
    return r.total;
  }
}

export interface RolloutView {
  readonly id: number;
  readonly status: string;
  readonly totalTargets?: number;
  readonly totalTargetsPerStatus?: Readonly<Record<string, number>>;
}

export interface RolloutGroupView {
  readonly name: string;
  readonly status: string;
  readonly totalTargets?: number;
  readonly totalTargetsPerStatus?: Readonly<Record<string, number>>;
}

/** FIQL for the targets of these groups (by the id patterns' fixed prefixes). */
export function groupFilter(groups: readonly GroupRuntime[]): string {
  return groups.map((g) => `controllerId==${(g.spec.idPattern ?? `${g.spec.name}-{n:6}`).split('{n')[0]}*`).join(',');
}

/**
 * Calls `probe` until the server answers at all, backing off 250 ms, 500 ms, 1 s... between
 * attempts; answers the status, or throws UnreachableError naming the address and the last error.
 */
export async function reach(server: string, attempts: number, log: (line: string) => void, probe: () => Promise<number>): Promise<number> {
  let last = '';
  for (let i = 0; i < attempts; i++) {
    try {
      return await probe();
    } catch (e) {
      last = causeOf(e);
      if (i + 1 < attempts) {
        const wait = 250 * 2 ** i;
        log(`cannot reach ${server} (${last}); retrying in ${wait} ms (attempt ${i + 1} of ${attempts})`);
        await sleep(wait);
      }
    }
  }
  throw new UnreachableError(`cannot reach ${server}: ${last} (gave up after ${attempts} attempts)`);
}

/** The short cause of a transport error (ECONNREFUSED, ECONNRESET, ...). */
function causeOf(e: unknown): string {
  if (e instanceof UnreachableError && e.cause !== undefined) return causeOf(e.cause);
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  // https:// against a plain HTTP port, or http:// against a TLS one: say which, not the OpenSSL line
  if (code?.startsWith('ERR_SSL') === true) return `${code} (TLS handshake failed: is the server plain http? then use http://)`;
  if (code === 'HPE_INVALID_CONSTANT' || /^Expected HTTP\//.test(err.message)) return 'the answer was not HTTP (is the server https? then use https://)';
  return code ?? err.cause?.message ?? err.message;
}
