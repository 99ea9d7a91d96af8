/**
 * Messages from `dmf_receiver`: headers and body checked, then handed to the device operations.
 * Outcomes: acknowledged when handled; rejected without requeue (dead-lettered, and logged) when the
 * message is wrong (no `type` or `tenant`, an unknown tenant, type or topic, bad JSON, a refused state
 * change, a quota, a PING whose reply-to exchange does not exist); tried again after a pause when
 * peregrine cannot handle it right now. While the store or the broker is away the message goes back
 * to the queue as it is (nothing else could be handled either); a failure of the message itself
 * (contention, a reply the broker refuses) puts it at the end of the queue with its tries counted and
 * dead-letters it after MAX_ATTEMPTS, so a sender's bad messages never hold up the others. Nothing a
 * client sends can crash the connector. Messages of one device (same thing id, or same action) are
 * handled in arrival order; different devices concurrently.
 * @see reference/hawkbit-api.md §9; hawkBit AmqpMessageHandlerService
 */
import type { AsyncMessage } from 'rabbitmq-client';
import type { ZodType } from 'zod';
import { KeyedLock } from '../actors/keyed-lock.js';
import type { DmfEffect } from '../domain/effects.js';
import type { Tenants } from '../tenancy/registry.js';
import { AppError } from '../domain/errors.js';
import { canonicalTenant } from '../domain/ids.js';
import { StoreUnavailableError } from '../store/port.js';
import { formatAmqpAddress } from './address.js';
import { amqpCode, ConsumerStatus, errorText, type Log, type OutboundMessage } from './connector.js';
import { DmfRejection, type DeviceOps } from './device-ops.js';
import type { DmfMetrics } from './metrics.js';
import { actionUpdateStatusBody, ATTEMPTS_HEADER, attributeUpdateBody, autoConfirmBody, createThingBody, HEADER } from './protocol.js';
import type { DmfOutbound, Publish } from './outbound.js';

export interface InboundOptions {
  readonly ops: DeviceOps;
  readonly outbound: DmfOutbound;
  readonly channel: Publish;
  readonly tenants: Pick<Tenants, 'has'>;
  readonly vhost: string;
  readonly log: Log;
  readonly metrics: DmfMetrics;
  readonly now: () => number;
  /** Pause before a message that could not be handled now goes back to the queue (ms). */
  readonly retryPauseMs?: number;
  /** Puts a message at the end of the receiver queue with its tries counted (the connector's retryLater). */
  readonly retryLater: (msg: AsyncMessage, attempts: number) => Promise<void>;
}

/** Tries of a message that fails by itself (not because the store or broker is away) before it is dead-lettered. */
const MAX_ATTEMPTS = 5;

/** Thrown for messages that can be handled later (store or broker away): the message is requeued. */
class Transient extends Error {}

export class DmfInbound {
  readonly #o: InboundOptions;
  readonly #order = new KeyedLock();

  constructor(options: InboundOptions) {
    this.#o = options;
  }

  /** The messages of one burst (burst-consumer.ts): each one's outcome, in their order. */
  handleBurst = (burst: readonly AsyncMessage[]): Promise<ConsumerStatus>[] => burst.map((msg) => this.#handle(msg));

  async #handle(msg: AsyncMessage): Promise<ConsumerStatus> {
    const type = header(msg, HEADER.type);
    const tenantHeader = header(msg, HEADER.tenant);
    const thingId = header(msg, HEADER.thingId);
    const topic = header(msg, HEADER.topic);
    const context = { type, topic, tenant: tenantHeader, thingId };
    this.#o.metrics.message('in', { type, topic });
    try {
      if (type === undefined || tenantHeader === undefined) throw new DmfRejection('Invalid message! tenant and type header are mandatory!');
      const tenant = canonicalTenant(tenantHeader);
      if (type !== 'PING' && !this.#o.tenants.has(tenant)) throw new DmfRejection(`tenant '${tenantHeader}' does not exist`);
      const work = this.#route(msg, type, topic, tenant, thingId);
      const key = thingId ?? (topic === 'UPDATE_ACTION_STATUS' ? `action:${String(bodyField(msg, 'actionId'))}` : '');
      await this.#order.run(`${tenant}\u0000${key}`, work);
      this.#o.metrics.received('handled');
      return ConsumerStatus.ACK;
    } catch (err) {
      const status = await this.#failed(msg, err, context);
      this.#o.metrics.received(status === ConsumerStatus.DROP ? 'rejected' : 'requeued');
      return status;
    }
  }

  #route(msg: AsyncMessage, type: string, topic: string | undefined, tenant: string, thingId: string | undefined): () => Promise<void> {
    const ops = this.#o.ops;
    const now = this.#o.now();
    switch (type) {
      case 'THING_CREATED': {
        const id = required(thingId, 'ThingId is null');
        if (msg.replyTo === undefined || msg.replyTo === '') throw new DmfRejection('No ReplyTo was set for the createThing message.');
        const body = emptyBody(msg) ? null : parse(msg, createThingBody);
        const address = formatAmqpAddress({ vhost: this.#o.vhost, exchange: msg.replyTo });
        return async () => {
          const target = await ops.registerThing(tenant, id, {
            address, name: body?.name ?? null, typeName: body?.type ?? null, attributes: body?.attributeUpdate ?? null,
          }, now);
          // as hawkBit: a device that (re)connects is told at once what it should work on
          await this.#sendNow(tenant, { type: 'dmf.next', targetId: target.id });
        };
      }
      case 'THING_REMOVED': {
        const id = required(thingId, 'ThingId is null');
        return () => ops.removeThing(tenant, id);
      }
      case 'EVENT': {
        requireJson(msg);
        switch (topic) {
          case 'UPDATE_ACTION_STATUS': {
            const body = parse(msg, actionUpdateStatusBody);
            const correlationId = msg.correlationId === undefined || msg.correlationId === '' ? null : msg.correlationId;
            return () => ops.reportStatus(tenant, thingId ?? null, body, correlationId, now);
          }
          case 'UPDATE_ATTRIBUTES': {
            const id = required(thingId, 'ThingId is null');
            const body = parse(msg, attributeUpdateBody);
            return () => ops.updateAttributes(tenant, id, body, now);
          }
          case 'UPDATE_AUTO_CONFIRM': {
            const id = required(thingId, 'ThingId is null');
            const body = parse(msg, autoConfirmBody);
            return () => ops.setAutoConfirm(tenant, id, body, now);
          }
          case undefined:
            throw new DmfRejection('EventTopic is null');
          default:
            throw new DmfRejection(`Got event without appropriate topic: ${topic}`);
        }
      }
      case 'PING':
        return () => this.#pong(msg, tenant);
      default:
        throw new DmfRejection(`No handle method was found for the given message type: ${type}`);
    }
  }

  /** PING -> PING_RESPONSE to the reply-to exchange, with the same correlation id and the time as text. */
  async #pong(msg: AsyncMessage, tenant: string): Promise<void> {
    if (msg.correlationId === undefined || msg.correlationId === '' || msg.replyTo === undefined || msg.replyTo === '') return;
    const reply: OutboundMessage = {
      exchange: msg.replyTo,
      headers: { type: 'PING_RESPONSE', tenant },
      contentType: 'text/plain',
      body: Buffer.from(String(this.#o.now())),
      correlationId: msg.correlationId,
    };
    try {
      // once more at once: a publish to a missing exchange elsewhere closes the shared channel under this one
      await this.#o.channel.publish(reply).catch((err: unknown) => {
        if (amqpCode(err) === 'NOT_FOUND') throw err;
        return this.#o.channel.publish(reply);
      });
      this.#o.metrics.message('out', reply.headers);
    } catch (err) {
      // as for outbound messages: retrying cannot make the exchange appear
      if (amqpCode(err) === 'NOT_FOUND') throw new DmfRejection(`the reply-to exchange '${msg.replyTo}' does not exist`);
      throw new Transient(`PING_RESPONSE could not be sent: ${errorText(err)}`);
    }
  }

  /** Publishes an outbound effect's message right away (THING_CREATED); requeues the message when that fails. */
  async #sendNow(tenant: string, effect: Extract<DmfEffect, { type: 'dmf.next' }>): Promise<void> {
    const [ok] = await this.#o.outbound.publish([{ tenant, effect, id: `${effect.type}-${tenant}-${effect.targetId}-${this.#o.now()}` }]);
    if (ok !== true) throw new Transient('the device could not be sent its current action');
  }

  async #failed(msg: AsyncMessage, err: unknown, context: object): Promise<ConsumerStatus> {
    if (err instanceof DmfRejection || (err instanceof AppError && err.code !== 'CONCURRENT_MODIFICATION')) {
      this.#o.log.warn({ ...context, reason: err.message }, 'DMF: message rejected (dead-lettered)');
      return ConsumerStatus.DROP;
    }
    if (err instanceof Transient || err instanceof StoreUnavailableError || err instanceof AppError) {
      // a pause, or a message that keeps failing would spin between the broker and this consumer
      await new Promise((r) => setTimeout(r, this.#o.retryPauseMs ?? 1000));
      if (err instanceof StoreUnavailableError || !this.#o.channel.ready) {
        this.#o.log.warn({ ...context, reason: err.message }, 'DMF: message cannot be handled now; requeued');
        return ConsumerStatus.REQUEUE;
      }
      const attempts = attemptsOf(msg) + 1;
      if (attempts >= MAX_ATTEMPTS) {
        this.#o.log.warn({ ...context, attempts, reason: err.message }, 'DMF: message failed every try; dead-lettered');
        return ConsumerStatus.DROP;
      }
      this.#o.log.warn({ ...context, attempts, reason: err.message }, 'DMF: message cannot be handled now; tried again later');
      try {
        await this.#o.retryLater(msg, attempts);
        return ConsumerStatus.ACK;
      } catch {
        return ConsumerStatus.REQUEUE;
      }
    }
    // a bug: do not let one message loop forever; it stays in the dead-letter queue for inspection
    this.#o.log.error({ ...context, err }, 'DMF: handling a message failed unexpectedly (dead-lettered)');
    return ConsumerStatus.DROP;
  }
}

/** The tries a message had before it came back to the queue (0 for a message as a client sent it). */
function attemptsOf(msg: AsyncMessage): number {
  const n = Number(header(msg, ATTEMPTS_HEADER) ?? 0);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** A header as text; undefined when absent or empty (AMQP may carry text as bytes). */
function header(msg: AsyncMessage, key: string): string | undefined {
  const raw: unknown = msg.headers?.[key];
  let text: string;
  if (Buffer.isBuffer(raw)) text = raw.toString('utf8');
  else if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') text = String(raw);
  else return undefined; // absent, or a table/array where text belongs
  return text === '' ? undefined : text;
}

function required(value: string | undefined, message: string): string {
  if (value === undefined) throw new DmfRejection(message);
  return value;
}

function requireJson(msg: AsyncMessage): void {
  if (msg.contentType === undefined || !msg.contentType.includes('json')) throw new DmfRejection('Content-Type is not JSON compatible');
}

/** An absent body, or the empty JSON string hawkBit's converter makes of one. */
function emptyBody(msg: AsyncMessage): boolean {
  const b: unknown = msg.body;
  if (b === undefined || b === null || b === '') return true;
  if (Buffer.isBuffer(b)) return b.length === 0 || b.toString() === '""';
  return false;
}

/** The JSON body: the client library parses application/json itself and leaves bytes when that fails. */
function json(msg: AsyncMessage): unknown {
  const b: unknown = msg.body;
  if (!Buffer.isBuffer(b)) return b;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    throw new DmfRejection('message body is not valid JSON');
  }
}

function parse<T>(msg: AsyncMessage, schema: ZodType<T>): T {
  requireJson(msg);
  const result = schema.safeParse(json(msg));
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new DmfRejection(`invalid body: ${issue === undefined ? 'unreadable' : `${issue.path.join('.') || '(root)'}: ${issue.message}`}`);
  }
  return result.data;
}

function bodyField(msg: AsyncMessage, key: string): unknown {
  try {
    const body = json(msg);
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}
