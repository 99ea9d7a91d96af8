/**
 * One virtual device running the DDI loop of reference §1.8: poll with If-None-Match, send attributes
 * when asked, confirm (or deny) actions waiting for confirmation, download and verify every artifact of
 * a deployment and report proceeding then closed, accept cancellations. Outcomes go to shared stats.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { downloadArtifact } from './download.js';
import { parseSleep, subResource, type DdiCancel, type DdiDeploymentBase, type DdiRoot, type Link } from './ddi-types.js';
import { header, type SimHttp, type SimResponse } from './http.js';
import { countError, type FleetStats } from './stats.js';

export type DeviceAuth =
  | { readonly mode: 'anonymous' }
  | { readonly mode: 'gateway'; readonly token: string }
  | { readonly mode: 'target'; readonly token: string };

export interface DeviceBehaviour {
  /** Multiplies the server's polling sleep (0.001 turns 00:05:00 into 300 ms). */
  readonly timeScale: number;
  /** Shortest sleep between polls in ms, whatever the scaled value. */
  readonly minSleepMs: number;
  /** Longest sleep in ms (servers default to hours; a simulation wants activity). */
  readonly maxSleepMs: number;
  /** Probability (0..1) that a deployment is reported as failed. */
  readonly failureRate: number;
  /** Probability (0..1) that an action waiting for confirmation is denied. */
  readonly denyRate: number;
  readonly attributes: Readonly<Record<string, string>>;
  /** Download in Range requests of this many bytes (0 = one plain GET per artifact). */
  readonly rangeChunkBytes: number;
  readonly random: () => number;
}

export interface DeviceOptions {
  readonly server: string;
  readonly tenant: string;
  readonly controllerId: string;
  readonly auth: DeviceAuth;
  readonly http: SimHttp;
  readonly stats: FleetStats;
  readonly behaviour: DeviceBehaviour;
}

export class VirtualDevice {
  private etag: string | undefined;
  /** Set when handling the last 200 body failed, so a following 304 handles the same links again. */
  private retryLinks = false;
  private lastRoot: DdiRoot | undefined;
  /** Actions this device finished with (confirmation denied or final feedback sent): never touched again. */
  private readonly settled = new Set<string>();
  readonly rootUrl: string;
  private readonly authHeaders: Record<string, string>;

  constructor(private readonly o: DeviceOptions) {
    this.rootUrl = new URL(`/${encodeURIComponent(o.tenant)}/controller/v1/${encodeURIComponent(o.controllerId)}`, o.server).toString();
    this.authHeaders = o.auth.mode === 'gateway' ? { authorization: `GatewayToken ${o.auth.token}` }
      : o.auth.mode === 'target' ? { authorization: `TargetToken ${o.auth.token}` } : {};
  }

  /** Polls until the signal aborts; never throws (errors are counted and the loop backs off). */
  async run(signal: AbortSignal, initialDelayMs = 0): Promise<void> {
    if (initialDelayMs > 0) await sleep(initialDelayMs, undefined, { signal }).catch(() => undefined);
    while (!signal.aborted) {
      let waitMs: number;
      try {
        waitMs = await this.cycle();
      } catch {
        countError(this.o.stats, 'network');
        waitMs = this.scaled(undefined) * 2;
      }
      await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One poll plus whatever its links ask for; returns how long to sleep before the next poll. */
  async cycle(): Promise<number> {
    const { stats } = this.o;
    let root: DdiRoot | undefined;
    let retryAfterMs: number | undefined;
    const headers = { ...this.authHeaders, ...(this.etag ? { 'if-none-match': this.etag } : {}) };
    await this.request('GET', this.rootUrl, headers, undefined, async (res) => {
      stats.polls++;
      if (res.status === 304) { stats.notModified++; if (this.retryLinks) root = this.lastRoot; return; }
      if (res.status === 429) {
        // Server-side pacing runs on real time, so Retry-After is honoured unscaled.
        stats.throttled++;
        retryAfterMs = Math.max(1, Number(header(res, 'retry-after')) || 1) * 1000;
        return;
      }
      if (res.status !== 200) { countError(stats, res.status); return; }
      this.etag = header(res, 'etag');
      root = (await res.body.json()) as DdiRoot;
      this.lastRoot = root;
    });
    if (retryAfterMs !== undefined) return retryAfterMs;
    if (root) {
      this.retryLinks = !(await this.follow(root));
      // An action is in progress: poll again soon instead of waiting a full interval for its next step.
      const l = root._links ?? {};
      const open = [l.deploymentBase, l.cancelAction, l.confirmationBase].some((x) => x && !this.settled.has(actionIdOf(x.href)));
      if (open || this.retryLinks) return this.o.behaviour.minSleepMs;
    }
    return this.scaled(this.lastRoot?.config?.polling?.sleep);
  }

  private scaled(sleepValue: string | undefined): number {
    const ms = (parseSleep(sleepValue) ?? 300_000) * this.o.behaviour.timeScale;
    return Math.min(this.o.behaviour.maxSleepMs, Math.max(this.o.behaviour.minSleepMs, Math.round(ms)));
  }

  /** Handles the root's links; false when a step failed and should be retried. */
  private async follow(root: DdiRoot): Promise<boolean> {
    const links = root._links ?? {};
    let ok = true;
    if (links.configData) ok = (await this.sendConfigData(links.configData)) && ok;
    if (links.confirmationBase) ok = (await this.confirm(links.confirmationBase)) && ok;
    if (links.deploymentBase) ok = (await this.deploy(links.deploymentBase)) && ok;
    if (links.cancelAction) ok = (await this.acceptCancel(links.cancelAction)) && ok;
    return ok;
  }

  private async sendConfigData(link: Link): Promise<boolean> {
    const data = { ...this.o.behaviour.attributes, controllerId: this.o.controllerId };
    const ok = await this.expectOk('PUT', link.href, { mode: 'merge', data });
    if (ok) this.o.stats.configDataSent++;
    return ok;
  }

  private async confirm(link: Link): Promise<boolean> {
    const id = actionIdOf(link.href);
    if (this.settled.has(id)) return true;
    if (!(await this.getJson<unknown>(link.href))) return false;
    const deny = this.o.behaviour.random() < this.o.behaviour.denyRate;
    const ok = await this.expectOk('POST', subResource(link.href, '/feedback'), { confirmation: deny ? 'denied' : 'confirmed', code: 200, details: ['simulator'] });
    if (!ok) return false;
    if (deny) { this.o.stats.denials++; this.settled.add(id); } else this.o.stats.confirmations++;
    return true;
  }

  private async deploy(link: Link): Promise<boolean> {
    const { stats, behaviour } = this.o;
    const base = await this.getJson<DdiDeploymentBase>(link.href);
    if (!base || this.settled.has(base.id)) return base !== undefined;
    stats.deploymentsStarted++;
    const feedback = subResource(link.href, '/feedback');
    if (!(await this.expectOk('POST', feedback, report('proceeding', 'none', 'downloading')))) return false;
    let problem: string | undefined;
    for (const chunk of base.deployment.chunks) {
      for (const a of chunk.artifacts ?? []) {
        const href = a._links?.['download-http']?.href ?? a._links?.['download']?.href;
        if (!href) { problem = `no download link for ${a.filename}`; break; }
        const r = await downloadArtifact(this.o.http, this.authHeaders, { ...a, href }, behaviour.rangeChunkBytes);
        stats.bytesDownloaded += r.bytes;
        if (!r.ok) {
          if (r.status !== undefined) countError(stats, r.status); else stats.verifyFailures++;
          problem = r.reason;
          break;
        }
        stats.artifactsDownloaded++;
      }
      if (problem) break;
    }
    const fail = problem !== undefined || behaviour.random() < behaviour.failureRate;
    const ok = await this.expectOk('POST', feedback, report('closed', fail ? 'failure' : 'success', problem ?? (fail ? 'simulated failure' : 'installed')));
    if (!ok) return false;
    this.settled.add(base.id);
    if (fail) stats.deploymentsFailed++; else stats.deploymentsSucceeded++;
    return true;
  }

  private async acceptCancel(link: Link): Promise<boolean> {
    const cancel = await this.getJson<DdiCancel>(link.href);
    if (!cancel) return false;
    const ok = await this.expectOk('POST', subResource(link.href, '/feedback'), report('closed', 'success', 'canceled by simulator'));
    if (ok) { this.o.stats.cancelsAccepted++; this.settled.add(cancel.cancelAction.stopId); }
    return ok;
  }

  private async getJson<T>(url: string): Promise<T | undefined> {
    let out: T | undefined;
    await this.request('GET', url, this.authHeaders, undefined, async (res) => {
      if (res.status === 200) out = (await res.body.json()) as T; else countError(this.o.stats, res.status);
    });
    return out;
  }

  private async expectOk(method: 'PUT' | 'POST', url: string, json: unknown): Promise<boolean> {
    let ok = false;
    await this.request(method, url, this.authHeaders, json, async (res) => {
      ok = res.status >= 200 && res.status < 300;
      if (!ok) countError(this.o.stats, res.status);
    });
    return ok;
  }

  private async request(method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, json: unknown, use: (res: SimResponse) => Promise<void>): Promise<void> {
    this.o.stats.requests++;
    await this.o.http.send({ method, url, headers, json }, use);
  }
}

function report(execution: string, finished: 'success' | 'failure' | 'none', detail: string): object {
  return { timestamp: Date.now(), status: { execution, result: { finished }, details: [detail] } };
}

/** The action id is the last path segment of a deploymentBase/confirmationBase/cancelAction link. */
function actionIdOf(href: string): string {
  return new URL(href).pathname.split('/').pop() ?? '';
}
