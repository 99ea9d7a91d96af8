/**
 * Device Management Federation over AMQP (`dmf.enabled`): gateways and back ends register devices,
 * report attributes and action states through RabbitMQ and receive assignments, cancellations and
 * attribute requests on their reply-to exchange. Inbound messages drive the same device operations
 * and action machine as DDI (device-ops.ts); outbound messages come from the durable effects queue
 * (observer.ts, outbound.ts). Disabled, the module adds nothing: no effects, no connection.
 * @see reference/hawkbit-api.md §9
 */
import type { AppModule } from '../app/module.js';
import type { Services } from '../app/services.js';
import { DmfConnector } from './connector.js';
import { DeviceOps } from './device-ops.js';
import { DmfInbound } from './inbound.js';
import { dmfMetrics } from './metrics.js';
import { DMF_EFFECT_TYPES, dmfCommitObserver } from './observer.js';
import { DmfOutbound, type Publish } from './outbound.js';


export function dmfModule(services: Services): AppModule {
  const { config, logger } = services.ctx;
  const dmf = config.dmf;
  if (!dmf.enabled) return { name: 'dmf', schema: {}, routes: [] };
  const log = logger.child({ module: 'dmf' });
  const metrics = dmfMetrics(services.ctx.metrics.registry);
  let connector: DmfConnector | undefined;
  const channel: Publish = {
    get ready() {
      return connector?.ready ?? false;
    },
    publish: (m) => (connector === undefined ? Promise.reject(new Error('the DMF connector is not started')) : connector.publish(m)),
  };
  const outbound = new DmfOutbound({ services, channel, vhost: dmf.vhost, downloadBaseUrl: downloadBaseUrl(config), log, metrics });
  services.addEffectHandlers({}, Object.fromEntries(DMF_EFFECT_TYPES.map((type) => [type, outbound.handle])));
  return {
    name: 'dmf',
    schema: {},
    routes: [],
    observeCommits: dmfCommitObserver,
    async start() {
      const inbound = new DmfInbound({
        ops: new DeviceOps(services), outbound, channel, tenants: new Set(services.tenants), vhost: dmf.vhost, log, metrics, now: services.now,
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
function downloadBaseUrl(config: Services['ctx']['config']): string {
  if (config.dmf.downloadBaseUrl !== undefined) return config.dmf.downloadBaseUrl.replace(/\/+$/, '');
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.server.port}`;
}
