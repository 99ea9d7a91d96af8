/**
 * RabbitMQ for the DMF tests: a private broker node per test file (bench/lib/rabbitmq.ts: own node
 * name, ports, data and cookie, no plugins), with a few virtual hosts so each server a file starts
 * gets one of its own; and a DMF client playing a device gateway over a real AMQP connection.
 */
import { randomBytes } from 'node:crypto';
import { Connection, type AsyncMessage, type Consumer } from 'rabbitmq-client';
import { inject } from 'vitest';
import { startRabbit, type RabbitNode } from '../../bench/lib/rabbitmq.js';
import { notePid } from './redis.js';

export type { RabbitNode } from '../../bench/lib/rabbitmq.js';

function runDir(): string | undefined {
  try {
    return inject('testTmpDir');
  } catch {
    return undefined;
  }
}

/** A private broker for this test file; vhosts `v1`..`vN`. Stop it with `destroy()` (afterAll). */
export async function startTestRabbit(vhostCount = 4): Promise<RabbitNode> {
  const vhosts = Array.from({ length: vhostCount }, (_, i) => `v${i + 1}`);
  return startRabbit({
    vhosts,
    parentDir: runDir(),
    onPid: (pid, exited) => {
      const forget = notePid(pid); // the global teardown kills it if this file never does
      void exited.then(forget);
    },
  });
}

/** A message the gateway received from peregrine. */
export interface Received {
  readonly type: string | undefined;
  readonly topic: string | undefined;
  readonly thingId: string | undefined;
  readonly tenant: string | undefined;
  readonly contentType: string | undefined;
  readonly correlationId: string | undefined;
  readonly headers: Readonly<Record<string, unknown>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly raw: Buffer;
}

export interface SendOptions {
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly replyTo?: string;
  readonly correlationId?: string;
}

/**
 * A device gateway: its own reply-to exchange (fanout) and queue; sends DMF messages to
 * `dmf.exchange` as hawkBit clients do, and collects what peregrine sends back.
 */
export class Gateway {
  readonly exchange: string;
  readonly received: Received[] = [];
  readonly #connection: Connection;
  readonly #consumer: Consumer;
  readonly #waiters = new Set<() => void>();

  private constructor(connection: Connection, consumer: Consumer, exchange: string) {
    this.#connection = connection;
    this.#consumer = consumer;
    this.exchange = exchange;
  }

  /** `durable`: the gateway's queue survives a broker restart (with the persistent messages in it). */
  static async open(node: Pick<RabbitNode, 'port'>, vhost: string, opts: { exchange?: string; durable?: boolean } = {}): Promise<Gateway> {
    const exchange = opts.exchange ?? `gw.${randomBytes(4).toString('hex')}`;
    const connection = new Connection({ hostname: '127.0.0.1', port: node.port, vhost, username: 'guest', password: 'guest', retryLow: 200, retryHigh: 1000 });
    connection.on('error', () => {});
    let gateway: Gateway | undefined;
    const ready = new Promise<void>((resolve) => {
      const consumer = connection.createConsumer({
        queue: `${exchange}.q`,
        queueOptions: { durable: opts.durable === true, autoDelete: false },
        exchanges: [{ exchange, type: 'fanout', durable: true }],
        queueBindings: [{ queue: `${exchange}.q`, exchange, routingKey: '' }],
      }, (msg) => gateway?.push(msg));
      consumer.on('ready', () => resolve());
      consumer.on('error', () => {});
      gateway = new Gateway(connection, consumer, exchange);
    });
    await ready;
    return gateway as Gateway;
  }

  private push(msg: AsyncMessage): void {
    const raw: Buffer = Buffer.isBuffer(msg.body) ? msg.body : Buffer.from(typeof msg.body === 'string' ? msg.body : JSON.stringify(msg.body));
    const h = msg.headers ?? {};
    this.received.push({
      type: h['type'] as string | undefined, topic: h['topic'] as string | undefined, thingId: h['thingId'] as string | undefined,
      tenant: h['tenant'] as string | undefined, contentType: msg.contentType, correlationId: msg.correlationId, headers: h, body: msg.body, raw,
    });
    for (const w of this.#waiters) w();
  }

  /** Publishes to dmf.exchange (or `exchange`) with a confirm. */
  async send(o: SendOptions, exchange = 'dmf.exchange'): Promise<void> {
    const pub = this.#connection.createPublisher({ confirm: true });
    try {
      const body = o.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(o.body) ? o.body : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
      await pub.send({
        exchange, routingKey: '', headers: o.headers, contentType: o.contentType ?? 'application/json', durable: true,
        ...(o.replyTo === undefined ? {} : { replyTo: o.replyTo }),
        ...(o.correlationId === undefined ? {} : { correlationId: o.correlationId }),
      }, body);
    } finally {
      await pub.close();
    }
  }

  thingCreated(tenant: string, thingId: string, body?: unknown, replyTo = this.exchange): Promise<void> {
    return this.send({ headers: { type: 'THING_CREATED', tenant, thingId, sender: 'test' }, replyTo, ...(body === undefined ? {} : { body }) });
  }

  event(tenant: string, thingId: string | undefined, topic: string, body: unknown, extra: Partial<SendOptions> = {}): Promise<void> {
    return this.send({ headers: { type: 'EVENT', tenant, topic, ...(thingId === undefined ? {} : { thingId }) }, body, ...extra });
  }

  status(tenant: string, thingId: string, actionId: number, actionStatus: string, more: Record<string, unknown> = {}): Promise<void> {
    return this.event(tenant, thingId, 'UPDATE_ACTION_STATUS', { actionId, actionStatus, message: [`${actionStatus} from test`], ...more });
  }

  /** The first message not yet taken that matches; waits up to `timeoutMs`. Taken messages are not returned again. */
  async take(match: (m: Received) => boolean, what: string, timeoutMs = 10_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.received.findIndex(match);
      if (i >= 0) return this.received.splice(i, 1)[0] as Received;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`no message ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.received.map((m) => [m.type, m.topic, m.thingId, m.body?.actionId]))}`);
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  /** The next message for a thing with this topic (EVENT) or type. */
  next(thingId: string, topicOrType: string, timeoutMs?: number): Promise<Received> {
    return this.take((m) => m.thingId === thingId && (m.topic === topicOrType || (m.topic === undefined && m.type === topicOrType)), `${topicOrType} for ${thingId}`, timeoutMs);
  }

  /** Messages for a thing received so far and not taken (to assert that nothing else came). */
  pending(thingId: string): Received[] {
    return this.received.filter((m) => m.thingId === thingId);
  }

  /** The number of messages in a queue of this vhost (e.g. the dead-letter queue). */
  async queueDepth(queue: string): Promise<number> {
    const r = await this.#connection.queueDeclare({ queue, passive: true });
    return r.messageCount;
  }

  /** Takes one message from a queue (e.g. the dead-letter queue), or undefined when it is empty. */
  async get(queue: string): Promise<AsyncMessage | undefined> {
    return (await this.#connection.basicGet({ queue, noAck: true })) as AsyncMessage | undefined;
  }

  async close(): Promise<void> {
    await this.#consumer.close().catch(() => undefined);
    await this.#connection.close().catch(() => undefined);
  }
}
