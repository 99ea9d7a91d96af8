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
import type { AppModule, ModuleContext } from '../app/module.js';
import type { DmfHooks } from '../actors/effects.js';
import { DmfConnector } from './connector.js';
import { DeviceOps, type DeviceOpsDeps } from './device-ops.js';
import { DmfInbound } from './inbound.js';
import { dmfMetrics } from './metrics.js';
import { dmfObserver } from './observer.js';
import { DmfOutbound, type OutboundDeps, type Publish } from './outbound.js';

export type DmfModuleDeps = DeviceOpsDeps & OutboundDeps & {
  readonly ctx: Pick<ModuleContext, 'config' | 'logger' | 'metrics'>;
  /** Canonical names of the configured tenants: messages for others are rejected. */
  readonly tenants: readonly string[];
  connectDmf(hooks: DmfHooks): void;
};

export function dmfModule(deps: DmfModuleDeps): AppModule {
  const { config, logger } = deps.ctx;
  const dmf = config.dmf;
  if (!dmf.enabled) return { name: 'dmf', schema: {}, routes: [] };
  const log = logger.child({ module: 'dmf' });
  const metrics = dmfMetrics(deps.ctx.metrics.registry);
  let connector: DmfConnector | undefined;
  const channel: Publish = {
    get ready() {
      return connector?.ready ?? false;
    },
    publish: (m) => (connector === undefined ? Promise.reject(new Error('the DMF connector is not started')) : connector.publish(m)),
  };
  const outbound = new DmfOutbound({
    deps, channel, vhost: dmf.vhost, downloadBaseUrl: downloadBaseUrl(config), extendedHashes: dmf.extendedHashes, log, metrics,
  });
  deps.connectDmf({ observer: dmfObserver, outbound });
  return {
    name: 'dmf',
    schema: {},
    routes: [],
    async start() {
      const ops = new DeviceOps(deps, log);
      const inbound = new DmfInbound({
        ops, outbound, channel, tenants: new Set(deps.tenants), vhost: dmf.vhost, log, metrics, now: () => deps.now(),
        retryLater: (msg, attempts) => (connector === undefined ? Promise.reject(new Error('the DMF connector is not started')) : connector.retryLater(msg, attempts)),
      });
      connector = new DmfConnector(dmf, log, metrics, inbound.handle);
      log.info({ url: dmf.url, vhost: dmf.vhost, queue: dmf.receiverQueue }, 'DMF connector started');
    },
    async stop() {
      await connector?.stop();
    },
  };
}

/** `dmf.downloadBaseUrl`, else the server's own address (0.0.0.0 / :: read as loopback). */
function downloadBaseUrl(config: ModuleContext['config']): string {
  if (config.dmf.downloadBaseUrl !== undefined) return config.dmf.downloadBaseUrl.replace(/\/+$/, '');
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.server.port}`;
}
