/**
 * The AMQP side of the DMF connector: one connection to the broker, the topology hawkBit declares
 * (fanout `dmf.exchange` -> durable `dmf_receiver`, whose rejected messages dead-letter through the
 * fanout `dmf.connector.deadletter` into `dmf_connector_deadletter_ttl`, kept 21 days), a consumer
 * on the receiver queue and a publisher with confirms.
 *
 * Client library: rabbitmq-client, not amqplib. Both are maintained AMQP 0-9-1 clients without
 * dependencies and both offer publisher confirms. amqplib is the low-level, far more widely used
 * one, but it does not reconnect: after a broker restart or a channel closed by the server (e.g. a
 * publish to an exchange that does not exist) the caller must build a new connection and channels
 * and declare the topology again, which is exactly the fault handling this connector must get right.
 * rabbitmq-client does that itself (reconnect with back-off, re-declare queues, exchanges and bindings
 * on every new channel, restart consumers) and is written in TypeScript. Its connection and publisher
 * are used as they are; its Consumer acks every message on its own, so the receiver queue is consumed
 * by burst-consumer.ts instead (the same setup on a channel of its own, acks in batches).
 * @see reference/hawkbit-api.md §9; hawkBit DmfAmqpDeclarationConfiguration, AmqpDeadletterProperties
 */
import { Connection, ConsumerStatus, type AsyncMessage, type Publisher } from 'rabbitmq-client';
import type { Config } from '../config/index.js';
import { BurstConsumer, type BurstHandler } from './burst-consumer.js';
import type { DmfMetrics } from './metrics.js';
import { ATTEMPTS_HEADER, DMF_EXCHANGE } from './protocol.js';

type DmfConfig = Config['dmf'];

export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** One message to publish to an exchange of the connector's virtual host. */
export interface OutboundMessage {
  readonly exchange: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: 'application/json' | 'text/plain';
  readonly body: Buffer;
  readonly correlationId: string;
}

export { ConsumerStatus };

/** Retry back-off of the connection and the consumer: first after 0.5 s, growing to 10 s. */
const RETRY_LOW_MS = 500;
const RETRY_HIGH_MS = 10_000;
/** The largest QoS prefetch count AMQP carries. */
const MAX_PREFETCH = 65_535;

export class DmfConnector {
  readonly #config: DmfConfig;
  readonly #log: Log;
  readonly #connection: Connection;
  readonly #consumer: BurstConsumer;
  readonly #publisher: Publisher;
  #closed = false;

  constructor(config: DmfConfig, log: Log, metrics: DmfMetrics, onBurst: BurstHandler) {
    this.#config = config;
    this.#log = log;
    const url = new URL(config.url);
    this.#connection = new Connection({
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || (url.protocol === 'amqps:' ? 5671 : 5672),
      tls: url.protocol === 'amqps:',
      vhost: config.vhost,
      username: config.username,
      password: config.password,
      connectionName: 'peregrine dmf',
      // a publish waits this long for a channel; the effects dispatcher retries later rather than stall
      acquireTimeout: 5_000, // 5 seconds
      retryLow: RETRY_LOW_MS,
      retryHigh: RETRY_HIGH_MS,
    });
    let down = false;
    this.#connection.on('error', (err: unknown) => {
      if (!down) log.warn({ err: errorText(err), url: config.url, vhost: config.vhost }, 'DMF: broker connection failed; reconnecting');
      down = true;
      metrics.connected(false);
    });
    this.#connection.on('connection', () => {
      log.info({ url: config.url, vhost: config.vhost }, 'DMF: connected to the broker');
      down = false;
      metrics.connected(true);
      void this.#declareDeadLetterQueue();
    });
    // `prefetch` messages are handled at once; the broker may deliver as many again, so the next burst waits here
    this.#consumer = new BurstConsumer(this.#connection, {
      queue: config.receiverQueue,
      queueOptions: { durable: true, arguments: { 'x-dead-letter-exchange': config.deadLetterExchange } },
      concurrency: config.prefetch,
      prefetch: Math.min(MAX_PREFETCH, 2 * config.prefetch),
      retryLowMs: RETRY_LOW_MS,
      retryHighMs: RETRY_HIGH_MS,
      exchanges: [
        { exchange: DMF_EXCHANGE, type: 'fanout', durable: true },
        { exchange: config.deadLetterExchange, type: 'fanout', durable: true },
      ],
      queueBindings: [{ queue: config.receiverQueue, exchange: DMF_EXCHANGE, routingKey: '' }],
    }, onBurst, (err: unknown) => {
      // while the broker is away the connection's warning says it all; the consumer retries by itself
      if (!this.#closed && this.#connection.ready) log.warn({ err: errorText(err) }, 'DMF: consumer error');
    });
    this.#publisher = this.#connection.createPublisher({ confirm: true, maxAttempts: 1 });
  }

  /** Connected to the broker right now. */
  get ready(): boolean {
    return this.#connection.ready && !this.#closed;
  }

  /** Publishes with a broker confirm (persistent, so a broker restart keeps it in durable queues). */
  publish(m: OutboundMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the DMF connector is stopped'));
    return this.#publisher.send(
      { exchange: m.exchange, routingKey: '', headers: m.headers, contentType: m.contentType, correlationId: m.correlationId, messageId: m.correlationId, durable: true },
      m.body,
    );
  }

  /**
   * Puts a message that could not be handled yet at the end of the receiver queue (behind the others,
   * persistent) with its tries so far in `x-peregrine-attempts`. Its body goes back as it came (the
   * client library parsed JSON and text bodies; they are encoded again).
   */
  retryLater(msg: AsyncMessage, attempts: number): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the DMF connector is stopped'));
    const b: unknown = msg.body;
    const body = Buffer.isBuffer(b) ? b : typeof b === 'string' ? Buffer.from(b) : b === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(b));
    const { contentType, contentEncoding, correlationId, replyTo, messageId, timestamp, type, appId, priority } = msg;
    return this.#publisher.send({
      exchange: '', routingKey: this.#config.receiverQueue, durable: true,
      headers: { ...msg.headers, [ATTEMPTS_HEADER]: attempts },
      contentType, contentEncoding, correlationId, replyTo, messageId, timestamp, type, appId, priority,
    }, body);
  }

  /** Stops consuming (messages being handled finish first), then closes the publisher and the connection. */
  async stop(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#consumer.close().catch(() => undefined);
    await this.#publisher.close().catch(() => undefined);
    await this.#connection.close().catch(() => undefined);
  }

  async #declareDeadLetterQueue(): Promise<void> {
    const c = this.#config;
    try {
      await this.#connection.exchangeDeclare({ exchange: c.deadLetterExchange, type: 'fanout', durable: true });
      await this.#connection.queueDeclare({ queue: c.deadLetterQueue, durable: true, arguments: { 'x-message-ttl': c.deadLetterTtlMs } });
      await this.#connection.queueBind({ queue: c.deadLetterQueue, exchange: c.deadLetterExchange, routingKey: '' });
    } catch (err) {
      if (!this.#closed) this.#log.warn({ err: errorText(err) }, 'DMF: declaring the dead-letter queue failed; retried at the next connection');
    }
  }
}

/** The error's code and message (never the connection options, which hold the password). */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** The AMQP reply code of a failed publish, e.g. NOT_FOUND for a missing exchange. */
export function amqpCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
