/**
 * Outbound DMF messages, built from the effects the actor observer queued (observer.ts) when the
 * effects dispatcher hands them over, a read batch at a time: each effect is checked against the
 * current state (the target still has an `amqp://` address, the action is still open or canceling),
 * turned into its message, and all are published with broker confirms before any effect is acked.
 * Delivery is at least once: a publish that fails leaves its effect in the queue for a later round,
 * and every payload carries the action id (the correlation id is the effect's id) so consumers can
 * drop duplicates. A message to an exchange that does not exist is dropped with a warning: retrying
 * cannot help, and hawkBit loses it the same way.
 * @see reference/hawkbit-api.md §9 (outbound messages, topic choice)
 */
import type { BatchedEffect } from '../actors/dispatcher.js';
import type { DmfOutboundPort } from '../actors/effect-handlers.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import type { DmfEffect } from '../domain/effects.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import { highestPriority, maintenanceState } from '../device/active-actions.js';
import { artifactUrl } from '../device/artifact-url.js';
import { deviceModules, type DeviceModule } from '../device/modules.js';
import { activeActionsOf } from '../store/named-reads.js';
import { StoreUnavailableError, type Reads } from '../store/port.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';
import { parseAmqpAddress } from './address.js';
import { amqpCode, errorText, type Log, type OutboundMessage } from './connector.js';
import type { DmfMetrics } from './metrics.js';
import { TYPE_ID, TYPE_ID_HEADER, type EventTopic } from './protocol.js';

export interface Publish {
  readonly ready: boolean;
  publish(m: OutboundMessage): Promise<void>;
}

/** What the outbound side reads (the shared services provide it). */
export interface OutboundDeps {
  readonly store: Reads;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
}

interface OutboundOptions {
  readonly deps: OutboundDeps;
  readonly channel: Publish;
  /** The connector's virtual host: addresses of other virtual hosts cannot be reached. */
  readonly vhost: string;
  /** Base of the DDI download URLs put in artifact entries, e.g. http://peregrine:8080 */
  readonly downloadBaseUrl: string;
  /** `dmf.extendedHashes`: artifact hashes add sha256 to hawkBit's sha1 and md5. */
  readonly extendedHashes: boolean;
  readonly log: Log;
  readonly metrics: DmfMetrics;
}

type UpdateTopic = Extract<EventTopic, 'DOWNLOAD_AND_INSTALL' | 'DOWNLOAD' | 'CONFIRM'>;

/** One message to send, and the effects (indexes into the batch) it answers for. */
interface Pending {
  readonly message: OutboundMessage;
  readonly items: number[];
}

/** An update message waiting to be built (alone, or as part of a batch). */
interface Update {
  readonly tenant: string;
  readonly index: number;
  readonly id: string;
  readonly target: TargetRecord;
  readonly exchange: string;
  readonly action: ActionRecord;
  readonly topic: UpdateTopic;
  readonly batchable: boolean;
}

const JSON_TYPE = 'application/json';

export class DmfOutbound implements DmfOutboundPort {
  readonly #o: OutboundOptions;

  constructor(options: OutboundOptions) {
    this.#o = options;
  }

  /** One flag per effect, true when it was delivered or needs no message (any more). */
  publish = async (effects: readonly BatchedEffect<DmfEffect>[]): Promise<readonly boolean[]> => {
    const done = effects.map(() => false);
    const pending: Pending[] = [];
    const updates: Update[] = [];
    await Promise.all(effects.map(async (item, index) => {
      try {
        const resolved = await this.#resolve(item, index);
        if (resolved === undefined) done[index] = true;
        else if ('message' in resolved) pending.push(resolved);
        else updates.push(resolved);
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) this.#o.log.warn({ err, effect: item.effect }, 'DMF: preparing a message failed; it will be retried');
      }
    }));
    try {
      pending.push(...(await this.#updateMessages(updates)));
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) this.#o.log.warn({ err }, 'DMF: building update messages failed; they will be retried');
    }
    // fail fast while the broker is away (effects that need no message are done all the same):
    // the dispatcher hands the others out again after its reclaim interval
    if (pending.length > 0 && !this.#o.channel.ready) {
      this.#o.metrics.published('failed', pending.length);
      return done;
    }
    // published in queue order (one channel keeps it): a device hears about its actions in the order they changed
    pending.sort((a, b) => Math.min(...a.items) - Math.min(...b.items));
    for (const index of await this.#publishAll(pending)) done[index] = true;
    return done;
  };

  /** The message of one effect, an update to build, or undefined when none is due (any more). */
  async #resolve(item: BatchedEffect<DmfEffect>, index: number): Promise<Pending | Update | undefined> {
    const { tenant, effect, id } = item;
    const store = this.#o.deps.store;
    if (effect.type === 'dmf.deleted') {
      const exchange = this.#exchange(effect.address);
      if (exchange === undefined) return undefined;
      return { message: this.#message(exchange, id, { type: 'THING_DELETED', thingId: effect.controllerId, tenant }), items: [index] };
    }
    const target = (await store.get<TargetRecord>(tenant, TARGET, effect.targetId))?.value;
    const exchange = target === undefined ? undefined : this.#exchange(target.address);
    if (target === undefined || exchange === undefined) return undefined;
    const event = (topic: EventTopic): Record<string, string> => ({ type: 'EVENT', topic, thingId: target.controllerId, tenant });
    switch (effect.type) {
      case 'dmf.attributes':
        return { message: this.#message(exchange, id, event('REQUEST_ATTRIBUTES_UPDATE')), items: [index] };
      case 'dmf.cancel': {
        const action = (await store.get<ActionRecord>(tenant, ACTION, effect.actionId))?.value;
        return action?.status === 'canceling' ? this.#cancel(exchange, id, target, tenant, action, index) : undefined;
      }
      case 'dmf.action': {
        const action = (await store.get<ActionRecord>(tenant, ACTION, effect.actionId))?.value;
        if (action === undefined || !action.active || action.status === 'canceling') return undefined;
        // as hawkBit: a target with a cancellation pending hears about the new action once the cancel is answered
        const open = await activeActionsOf(store, tenant, target.id);
        if (open.some((a) => a.value.status === 'canceling')) return undefined;
        return this.#update(tenant, index, id, target, exchange, action, true);
      }
      case 'dmf.next': {
        const top = highestPriority(await activeActionsOf(store, tenant, target.id))?.value;
        if (top === undefined) return undefined;
        if (top.status === 'canceling') return this.#cancel(exchange, id, target, tenant, top, index);
        return this.#update(tenant, index, id, target, exchange, top, false);
      }
    }
  }

  #cancel(exchange: string, id: string, target: TargetRecord, tenant: string, action: ActionRecord, index: number): Pending {
    const headers = { type: 'EVENT', topic: 'CANCEL_DOWNLOAD', thingId: target.controllerId, tenant, [TYPE_ID_HEADER]: TYPE_ID.action };
    return { message: this.#message(exchange, id, headers, { actionId: action.id }), items: [index] };
  }

  #update(
    tenant: string, index: number, id: string, target: TargetRecord, exchange: string, action: ActionRecord, batchable: boolean,
  ): Update {
    return { tenant, index, id, target, exchange, action, topic: updateTopic(action, Date.now()), batchable };
  }

  /**
   * DOWNLOAD_AND_INSTALL, DOWNLOAD and CONFIRM messages; with the tenant's `batch.assignments.enabled`,
   * the assignments of one read batch that share exchange, set and topic go out as one
   * BATCH_DOWNLOAD[_AND_INSTALL] (confirmations stay single: a batch has no CONFIRM topic).
   */
  async #updateMessages(updates: readonly Update[]): Promise<Pending[]> {
    if (updates.length === 0) return [];
    const sets = new Map<string, Promise<DeviceModule[]>>();
    const modulesOf = (tenant: string, ds: number): Promise<DeviceModule[]> => {
      const key = `${tenant}\u0000${ds}`;
      let found = sets.get(key);
      if (found === undefined) sets.set(key, (found = deviceModules(this.#o.deps.store, tenant, ds)));
      return found;
    };
    const batching = new Map<string, boolean>();
    for (const tenant of new Set(updates.map((u) => u.tenant))) {
      batching.set(tenant, (await this.#o.deps.tenantConfig.view(tenant)).bool('batch.assignments.enabled'));
    }
    const out: Pending[] = [];
    const batches = new Map<string, Update[]>();
    for (const u of updates) {
      if (u.batchable && u.topic !== 'CONFIRM' && batching.get(u.tenant) === true) {
        const key = `${u.tenant}\u0000${u.exchange}\u0000${u.action.ds}\u0000${u.topic}`;
        let batch = batches.get(key);
        if (batch === undefined) batches.set(key, (batch = []));
        batch.push(u);
        continue;
      }
      const typeId = u.topic === 'CONFIRM' ? TYPE_ID.confirm : TYPE_ID.downloadAndUpdate;
      const headers = { type: 'EVENT', topic: u.topic, thingId: u.target.controllerId, tenant: u.tenant, [TYPE_ID_HEADER]: typeId };
      const body = {
        actionId: u.action.id,
        targetSecurityToken: u.target.securityToken,
        softwareModules: this.#modulesJson(u.tenant, u.target, await modulesOf(u.tenant, u.action.ds)),
      };
      out.push({ message: this.#message(u.exchange, u.id, headers, body), items: [u.index] });
    }
    for (const group of batches.values()) {
      const first = group[0] as Update;
      const topic = first.topic === 'DOWNLOAD' ? 'BATCH_DOWNLOAD' : 'BATCH_DOWNLOAD_AND_INSTALL';
      const headers = { type: 'EVENT', topic, tenant: first.tenant, [TYPE_ID_HEADER]: TYPE_ID.batch };
      const body = {
        timestamp: Date.now(),
        targets: group.map((u) => ({
          actionId: u.action.id, controllerId: u.target.controllerId, targetSecurityToken: u.target.securityToken,
        })),
        // one set of modules for all: as hawkBit, the download URLs name the first target
        softwareModules: this.#modulesJson(first.tenant, first.target, await modulesOf(first.tenant, first.action.ds)),
      };
      out.push({ message: this.#message(first.exchange, first.id, headers, body), items: group.map((u) => u.index) });
    }
    return out;
  }

  /**
   * DmfSoftwareModule[]: artifacts with hashes (hawkBit's DmfArtifactHash `{sha1, md5}`, plus sha256 with
   * `dmf.extendedHashes`), size, last change and the DDI download URL (target token or anonymous).
   */
  #modulesJson(tenant: string, target: TargetRecord, modules: readonly DeviceModule[]): object[] {
    const scheme = this.#o.downloadBaseUrl.startsWith('https:') ? 'HTTPS' : 'HTTP';
    return modules.map(({ module: m, typeKey, artifacts, metadata }) => ({
      moduleId: m.id,
      moduleType: typeKey,
      moduleVersion: m.version,
      ...(m.encrypted ? { encrypted: true } : {}),
      artifacts: artifacts.map((a) => ({
        filename: a.filename,
        hashes: { sha1: a.hashes.sha1, md5: a.hashes.md5, ...(this.#o.extendedHashes ? { sha256: a.hashes.sha256 } : {}) },
        size: a.size,
        lastModified: a.lastModifiedAt,
        urls: { [scheme]: artifactUrl(this.#o.downloadBaseUrl, tenant, target.controllerId, m.id, a.filename) },
      })),
      ...(metadata.length > 0 ? { metadata } : {}),
    }));
  }

  #message(exchange: string, correlationId: string, headers: Record<string, string>, body?: object): OutboundMessage {
    return {
      exchange,
      headers: { ...headers, 'content-type': JSON_TYPE },
      contentType: JSON_TYPE,
      body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
      correlationId,
    };
  }

  /** The reply-to exchange of a DMF address in the connector's virtual host; undefined for other addresses. */
  #exchange(address: string | null): string | undefined {
    const a = parseAmqpAddress(address);
    if (a === undefined) return undefined;
    if (a.vhost !== this.#o.vhost) {
      this.#o.log.warn({ address, vhost: this.#o.vhost }, 'DMF: the target is connected through another virtual host; no message sent');
      return undefined;
    }
    return a.exchange;
  }

  /**
   * Publishes everything at once and waits for the confirms. A publish to a missing exchange makes
   * the broker close the channel, failing the publishes in flight with it; those are tried once more
   * without the missing exchanges. Returns the indexes of the effects that are done.
   */
  async #publishAll(pending: readonly Pending[]): Promise<number[]> {
    const done: number[] = [];
    const missing = new Set<string>();
    let confirmed = 0;
    let round = pending;
    for (let attempt = 1; attempt <= 2 && round.length > 0; attempt++) {
      const results = await Promise.allSettled(round.map((p) => this.#o.channel.publish(p.message)));
      const failed: Pending[] = [];
      results.forEach((r, i) => {
        const p = round[i] as Pending;
        if (r.status === 'fulfilled') {
          done.push(...p.items);
          confirmed++;
          this.#o.metrics.message('out', p.message.headers);
        } else if (amqpCode(r.reason) === 'NOT_FOUND') missing.add(p.message.exchange);
        else failed.push(p);
      });
      for (const p of round) if (missing.has(p.message.exchange)) done.push(...p.items);
      if (failed.length > 0 && (missing.size === 0 || attempt === 2)) {
        const reason = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        this.#o.log.warn({ failed: failed.length, err: errorText(reason?.reason) }, 'DMF: publishing failed; the messages will be sent again later');
      }
      round = missing.size > 0 ? failed.filter((p) => !missing.has(p.message.exchange)) : [];
    }
    for (const exchange of missing) this.#o.log.warn({ exchange }, 'DMF: the reply-to exchange does not exist; messages to it are dropped');
    const dropped = pending.filter((p) => missing.has(p.message.exchange)).length;
    this.#o.metrics.published('confirmed', confirmed);
    this.#o.metrics.published('dropped', dropped);
    this.#o.metrics.published('failed', pending.length - confirmed - dropped);
    return [...new Set(done)];
  }
}

/** CONFIRM while waiting for confirmation; DOWNLOAD for download-only or outside the maintenance window; else DOWNLOAD_AND_INSTALL. */
export function updateTopic(a: ActionRecord, now: number): UpdateTopic {
  if (a.status === 'wait_for_confirmation') return 'CONFIRM';
  if (a.actionType === 'downloadonly') return 'DOWNLOAD';
  const window = maintenanceState(a, now);
  return window !== undefined && !window.available ? 'DOWNLOAD' : 'DOWNLOAD_AND_INSTALL';
}
