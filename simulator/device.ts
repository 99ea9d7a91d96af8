/**
 * One virtual device: the DDI loop of reference §1.8 as a small state machine woken by the fleet's
 * scheduler (no timer and no promise chain of its own while idle). Per device: a handful of numbers,
 * the last ETag and, while an update runs, one small work record. Everything a group shares (URLs,
 * behaviour, auth) lives in its Group.
 */
import { parseSleep, subResource, type DdiCancel, type DdiDeploymentBase, type DdiRoot } from './ddi-types.js';
import { downloadArtifact } from './download.js';
import { header, type SimResponse } from './http.js';
import type { GroupRuntime } from './group.js';

export const STATES = ['idle', 'downloading', 'installing', 'waiting', 'done', 'failed'] as const;
export type DeviceState = (typeof STATES)[number];
const IDLE = 0, DOWNLOADING = 1, INSTALLING = 2, WAITING = 3, DONE = 4, FAILED = 5;

/** A request answered 5xx/429 or lost: the device backs off and tries again (after Retry-After for 429). */
class RetryLater extends Error {
  constructor(readonly afterMs?: number) { super('retry later'); }
}

interface Work {
  readonly actionId: string;
  readonly feedback: string;
  /** The version it installs (its first chunk's): what the device runs once it succeeded. */
  readonly version: string | undefined;
  phase: 'waiting' | 'installing';
  installUntil: number;
}

type Json = Record<string, unknown>;

/**
 * The attribute in which a device reports the version it runs (its last successful install's), as a
 * real device's configData does; a rollout's `verifyInstall: { attribute: sim_version }` checks it.
 */
const VERSION_ATTRIBUTE = 'sim_version';

export class Device {
  due = 0;
  state = IDLE;
  registered = false;
  private etag: string | undefined = undefined;
  private sleepMs = -1;
  private failures = 0;
  /** The action this device is finished with (closed, denied or left unanswered). */
  private settled: string | undefined = undefined;
  private work: Work | undefined = undefined;
  /** The version it runs: its last successful install's (none before one). */
  private running: string | undefined = undefined;

  constructor(readonly g: GroupRuntime, readonly n: number) {}

  get controllerId(): string { return this.g.idOf(this.n); }

  /** Does what is due and answers when the device wants to be woken next. */
  async wake(now: number): Promise<number> {
    try {
      const w = this.work;
      if (w?.phase === 'installing' && now >= w.installUntil) await this.finishInstall(w);
      const next = await this.poll(now);
      this.failures = 0;
      return next;
    } catch (e) {
      this.etag = undefined; // handle the links afresh on the next poll
      this.failures = Math.min(this.failures + 1, 12);
      const cap = Math.max(1000, this.interval());
      const backoff = Math.min(cap, 250 * 2 ** this.failures) * (0.5 + this.g.random() / 2);
      return Date.now() + (e instanceof RetryLater && e.afterMs !== undefined ? e.afterMs : backoff);
    }
  }

  private interval(): number {
    const b = this.g.behaviour.poll;
    const base = (this.sleepMs >= 0 ? this.sleepMs : 300_000) * this.g.timeScale;
    const jittered = base * (1 + b.jitter * (2 * this.g.random() - 1));
    return Math.min(b.maxMs, Math.max(b.minMs, Math.round(jittered)));
  }

  private nextWake(now: number): number {
    const poll = now + this.interval();
    const w = this.work;
    return w?.phase === 'installing' ? Math.min(poll, w.installUntil) : poll;
  }

  private setState(s: number): void {
    this.g.fleet.moved(this.state, s);
    this.state = s;
  }

  private async poll(now: number): Promise<number> {
    const g = this.g;
    const headers = this.etag ? { ...g.authOf(this.n), 'if-none-match': this.etag } : g.authOf(this.n);
    let root: DdiRoot | undefined;
    let after: number | undefined;
    let refused: string | undefined;
    const status = await g.http.send({ kind: 'poll', method: 'GET', url: g.rootOf(this.n), headers, faults: g.faults }, async (res) => {
      after = retryAfter(res.status, res);
      if (res.status === 200) root = (await res.body.json()) as DdiRoot;
      if (res.status === 404 && !this.registered) refused = await messageOf(res);
      if (res.status === 200 || res.status === 304) this.etag = header(res, 'etag');
    });
    g.stats.pollAnswered(Date.now() - this.due);
    if (status === 429) throw new RetryLater(after);
    if (status >= 500) throw new RetryLater();
    if (refused !== undefined) g.fleet.refusal ??= `the server answered 404 to the first poll of ${this.controllerId}: ${refused}`;
    if (status !== 200 && status !== 304) throw new Error(`poll answered ${status}`);
    let reported = false;
    if (!this.registered) {
      // the run's id (and the attributes) before the device counts: the run selects its targets by it
      await this.call('configData', 'PUT', `${g.rootOf(this.n)}/configData`, { mode: 'merge', data: this.attributes() });
      reported = true;
      this.registered = true;
      g.fleet.registered++;
    }
    if (root) {
      this.sleepMs = parseSleep(root.config?.polling?.sleep) ?? this.sleepMs;
      await this.follow(root, reported);
    }
    return this.nextWake(Math.max(now, Date.now()));
  }

  private async follow(root: DdiRoot, reported: boolean): Promise<void> {
    const l = root._links ?? {};
    if (l.configData && !reported) await this.call('configData', 'PUT', l.configData.href, { mode: 'merge', data: this.attributes() });
    if (l.cancelAction) await this.cancel(l.cancelAction.href);
    if (l.confirmationBase) await this.confirm(l.confirmationBase.href);
    if (l.deploymentBase) await this.deploy(l.deploymentBase.href);
  }

  private attributes(): Record<string, string> {
    const out = this.g.attributesOf(this.n);
    if (this.running !== undefined) out[VERSION_ATTRIBUTE] = this.running;
    return out;
  }

  private async confirm(href: string): Promise<void> {
    const id = actionIdOf(href);
    if (this.settled === id) return;
    const choice = this.g.pick('confirmation');
    if (choice === 'autoConfirm') {
      const url = `${this.g.rootOf(this.n)}/confirmationBase/activateAutoConfirm`;
      const s = await this.call('autoConfirm', 'POST', url, { initiator: 'simulator', remark: 'auto-confirm by the virtual fleet' }, [409]);
      if (s < 300) this.g.stats.counters.confirmations++;
      return;
    }
    await this.call('confirmation', 'GET', href);
    const deny = choice === 'deny';
    await this.call('confirmation', 'POST', subResource(href, '/feedback'),
      { confirmation: deny ? 'denied' : 'confirmed', code: 200, details: [`${deny ? 'denied' : 'confirmed'} by the simulator`] });
    if (deny) { this.g.stats.counters.denials++; this.settled = id; } else this.g.stats.counters.confirmations++;
  }

  private async cancel(href: string): Promise<void> {
    const c = await this.getJson<DdiCancel>('cancel', href);
    const stopId = c.cancelAction.stopId;
    const accept = this.g.pick('cancel') === 'accept';
    const body = accept ? report('closed', 'success', 'canceled by the simulator')
      : report('rejected', 'none', 'cancel rejected by the simulator');
    await this.call('cancel', 'POST', subResource(href, '/feedback'), body, [410]);
    if (accept) {
      this.g.stats.counters.cancelsAccepted++;
      this.settled = stopId;
      if (this.work?.actionId === stopId) { this.work = undefined; this.setState(IDLE); }
    } else this.g.stats.counters.cancelsRejected++;
  }

  private async deploy(href: string): Promise<void> {
    const id = actionIdOf(href);
    const w = this.work;
    if (this.settled === id || (w?.actionId === id && w.phase === 'installing')) return;
    const base = await this.getJson<DdiDeploymentBase>('deployment', href);
    const d = base.deployment;
    const feedback = subResource(href, '/feedback');
    if (w?.actionId === id) {
      // downloaded already, waiting for the maintenance window
      if (d.update !== 'skip') await this.startInstall(w);
      return;
    }
    this.work = undefined;
    this.setState(DOWNLOADING);
    await this.call('feedback', 'POST', feedback, report('proceeding', 'none', 'downloading'), [410]);
    const mode = this.g.behaviour.download.mode;
    if (mode !== 'skip') {
      for (const chunk of d.chunks) {
        for (const a of chunk.artifacts ?? []) {
          const link = a._links?.['download-http']?.href ?? a._links?.['download']?.href;
          const r = link === undefined ? { ok: false as const, retry: false, reason: `no download link for ${a.filename}` }
            : await downloadArtifact({
              http: this.g.http, stats: this.g.stats, headers: this.g.authOf(this.n), faults: this.g.faults,
              mode, pieceBytes: this.g.behaviour.download.pieceBytes,
            }, { ...a, href: link });
          if (!r.ok) {
            if (r.retry) throw new RetryLater();
            await this.close(id, feedback, false, r.reason);
            return;
          }
        }
      }
    }
    const work: Work = { actionId: id, feedback, phase: 'waiting', installUntil: 0, version: d.chunks[0]?.version };
    this.work = work;
    if (d.update === 'skip' && d.maintenanceWindow === undefined) {
      // download only: `downloaded` closes the action (reference §1.5)
      const s = await this.call('feedback', 'POST', feedback, report('downloaded', 'success', 'downloaded'), [410]);
      this.work = undefined;
      this.settled = id;
      if (s < 300) { this.g.stats.completed(true); this.setState(DONE); } else this.setState(IDLE);
      return;
    }
    if (d.update === 'skip') {
      this.setState(WAITING);
      await this.call('feedback', 'POST', feedback, report('proceeding', 'none', 'downloaded; waiting for the maintenance window'), [410]);
      return;
    }
    await this.startInstall(work);
  }

  private async startInstall(w: Work): Promise<void> {
    w.phase = 'installing';
    w.installUntil = Date.now() + this.g.installMs();
    this.setState(INSTALLING);
  }

  private async finishInstall(w: Work): Promise<void> {
    const outcome = this.g.pick('outcome');
    if (outcome === 'noAnswer') { this.work = undefined; this.settled = w.actionId; return; } // hangs: never reports
    if (outcome === 'fallBack') return this.fallBack(w);
    const s = await this.close(w.actionId, w.feedback, outcome === 'success', outcome === 'success' ? 'installed' : 'simulated installation failure');
    if (outcome === 'success' && s < 300) this.running = w.version;
  }

  /**
   * Reports success, then (the new slot did not boot, the bootloader went back to the old one) failure
   * on the same action before its next poll; it goes on reporting the version it ran before. A
   * verifyInstall rollout counts it as an error, others answer 410 to the second report.
   */
  private async fallBack(w: Work): Promise<void> {
    const s = await this.call('feedback', 'POST', w.feedback, report('closed', 'success', 'installed; rebooting into the new slot'), [410]);
    await this.call('feedback', 'POST', w.feedback, report('closed', 'failure', 'booted the previous slot (A/B fallback)'), [410]);
    this.settled = w.actionId;
    this.work = undefined;
    if (s === 410) { this.setState(IDLE); return; }
    this.g.stats.completed(false);
    this.setState(FAILED);
  }

  private async close(id: string, feedback: string, success: boolean, detail: string): Promise<number> {
    const s = await this.call('feedback', 'POST', feedback, report('closed', success ? 'success' : 'failure', detail), [410]);
    this.work = undefined;
    this.settled = id;
    if (s === 410) { this.setState(IDLE); return s; } // no longer active: canceled or stopped meanwhile
    this.g.stats.completed(success);
    this.setState(success ? DONE : FAILED);
    return s;
  }

  private async getJson<T>(kind: 'deployment' | 'cancel', url: string): Promise<T> {
    let out: T | undefined;
    const spec = { kind, method: 'GET' as const, url, headers: this.g.authOf(this.n), faults: this.g.faults };
    const status = await this.g.http.send(spec, async (res) => {
      if (res.status === 200) out = (await res.body.json()) as T;
    });
    check(status);
    if (out === undefined) throw new Error(`${kind} answered ${status}`);
    return out;
  }

  /** A request whose answer must be 2xx (or one of `tolerated`); returns the status. */
  private async call(kind: 'configData' | 'confirmation' | 'autoConfirm' | 'feedback' | 'cancel', method: 'GET' | 'PUT' | 'POST',
    url: string, json?: Json, tolerated: readonly number[] = []): Promise<number> {
    let after: number | undefined;
    const spec = { kind, method, url, headers: this.g.authOf(this.n), json, faults: this.g.faults };
    const status = await this.g.http.send(spec, async (res) => {
      after = retryAfter(res.status, res);
    });
    if (status === 429) throw new RetryLater(after);
    check(status);
    if (status >= 300 && !tolerated.includes(status)) throw new Error(`${kind} answered ${status}`);
    return status;
  }
}

/** The `message` of an error body, else its text. */
async function messageOf(res: SimResponse): Promise<string> {
  const text = await res.body.text();
  try {
    const m = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof m === 'string') return m;
  } catch { /* not JSON */ }
  return text.slice(0, 200) || '(no message)';
}

function check(status: number): void {
  if (status >= 500 || status === 429) throw new RetryLater();
}

function retryAfter(status: number, res: SimResponse): number | undefined {
  if (status !== 429) return undefined;
  const v = Number(header(res, 'retry-after'));
  return Number.isFinite(v) && v > 0 ? v * 1000 : 1000;
}

function report(execution: string, finished: 'success' | 'failure' | 'none', detail: string): Json {
  return { timestamp: Date.now(), status: { execution, result: { finished }, details: [detail] } };
}

/** The action id: the last path segment of a deploymentBase/confirmationBase/cancelAction link. */
function actionIdOf(href: string): string {
  return new URL(href).pathname.split('/').pop() ?? '';
}
