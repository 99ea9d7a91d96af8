/**
 * Device Management Federation over AMQP (`dmf.enabled`): gateways and back ends register devices,
 * report attributes and action states through RabbitMQ and receive assignments, cancellations and
 * attribute requests on their reply-to exchange. Inbound messages drive the same device operations
 * and action machine as DDI (device-ops.ts); outbound messages come from the durable effects queue:
 * the runtime commits the DMF effects the observer derives from actor changes (observer.ts), the
 * dispatcher hands them to the outbound port (outbound.ts). Disabled, the module adds nothing: no
 * observer, no connection (DMF effects still queued are dropped with an error log).
 * @see reference/hawkbit-api.md §9
 */
import type { AsyncMessage } from 'rabbitmq-client';
import type { AppModule, ModuleContext } from '../module.js';
import type { DmfHooks } from '../actors/effect-handlers.js';
import type { Tenants } from '../tenancy/registry.js';
import { DmfConnector, type OutboundMessage } from './connector.js';
import { DeviceOps, type DeviceOpsDeps } from './device-ops.js';
import { DmfInbound } from './inbound.js';
import { dmfMetrics, type DmfMetrics } from './metrics.js';
import { dmfObserver } from './observer.js';
import { DmfOutbound, type OutboundDeps, type Publish } from './outbound.js';

type DmfContext = Pick<ModuleContext, 'config' | 'logger' | 'metrics'>;

/** The connector's channel, answering 'not started' until the module's start() connects it. */
class ConnectorChannel implements Publish {
  connector: DmfConnector | undefined;

  get ready(): boolean {
    return this.connector?.ready ?? false;
  }

  async publish(m: OutboundMessage): Promise<void> {
    return this.#started().publish(m);
  }

  async retryLater(msg: AsyncMessage, attempts: number): Promise<void> {
    return this.#started().retryLater(msg, attempts);
  }

  #started(): DmfConnector {
    if (this.connector === undefined) throw new Error('the DMF connector is not started');
    return this.connector;
  }
}

/**
 * What the actors take from DMF, made before the runtime and the dispatcher (which take it when they
 * are created): the observer and the outbound port; the module connects the channel when it starts.
 */
export interface DmfLink extends DmfHooks {
  readonly outbound: DmfOutbound;
  readonly channel: ConnectorChannel;
  readonly metrics: DmfMetrics;
}

export function dmfLink(deps: OutboundDeps, ctx: DmfContext): DmfLink {
  const { dmf } = ctx.config;
  const channel = new ConnectorChannel();
  const metrics = dmfMetrics(ctx.metrics.registry);
  const outbound = new DmfOutbound({
    deps, channel, vhost: dmf.vhost, downloadBaseUrl: downloadBaseUrl(ctx.config), extendedHashes: dmf.extendedHashes,
    log: ctx.logger.child({ module: 'dmf' }), metrics,
  });
  return { observer: dmfObserver, outbound, channel, metrics };
}

export type DmfModuleDeps = DeviceOpsDeps & {
  readonly ctx: DmfContext;
  /** The tenants there are (config.yaml's and runtime ones): messages for others are rejected. */
  readonly tenants: Pick<Tenants, 'has'>;
  /** Undefined while `dmf.enabled` is false. */
  readonly dmf: DmfLink | undefined;
  now(): number;
};

export function dmfModule(deps: DmfModuleDeps): AppModule {
  const { config, logger } = deps.ctx;
  const { dmf: link } = deps;
  if (link === undefined) return { name: 'dmf', routes: [] };
  const dmf = config.dmf;
  const log = logger.child({ module: 'dmf' });
  const { channel, outbound, metrics } = link;
  return {
    name: 'dmf',
    routes: [],
    async start() {
      const ops = new DeviceOps(deps, log);
      const inbound = new DmfInbound({
        ops, outbound, channel, tenants: deps.tenants, vhost: dmf.vhost, log, metrics, now: () => deps.now(),
        retryLater: (msg, attempts) => channel.retryLater(msg, attempts),
      });
      channel.connector = new DmfConnector(dmf, log, metrics, inbound.handleBurst);
      log.info({ url: dmf.url, vhost: dmf.vhost, queue: dmf.receiverQueue }, 'DMF connector started');
    },
    async stop() {
      await channel.connector?.stop();
    },
  };
}

/** `dmf.downloadBaseUrl`, else the server's own address (0.0.0.0 / :: read as loopback). */
function downloadBaseUrl(config: ModuleContext['config']): string {
  if (config.dmf.downloadBaseUrl !== undefined) return config.dmf.downloadBaseUrl.replace(/\/+$/, '');
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.server.port}`;
}
