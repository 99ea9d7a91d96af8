/**
 * The Direct Device Integration API (`/{tenant}/controller/v1/{controllerId}/...`): every route,
 * each behind the device authenticator, and the write-behind poll recorder, flushed on stop.
 * @see reference/hawkbit-api.md §1, §2; spec 4.8, 5
 */
import type { AppModule } from '../app/module.js';
import type { Services } from '../app/services.js';
import type { Route } from '../http/types.js';
import { artifactDownloadHandler, artifactListHandler } from './artifacts.js';
import { configDataHandler } from './config-data.js';
import {
  activateAutoConfirmHandler, confirmationActionHandler, confirmationBaseHandler, confirmationFeedbackHandler, deactivateAutoConfirmHandler,
} from './confirmation.js';
import { deploymentBaseHandler, installedBaseHandler, setRunningVersionHandler } from './deployment-base.js';
import { deviceAuthenticator } from './device.js';
import { cancelActionHandler, cancelFeedbackHandler, deploymentFeedbackHandler } from './feedback.js';
import { pollHandler } from './poll.js';
import { pollLane } from './poll-lane.js';
import { PollLimiter } from './poll-limiter.js';
import { PollRecorder } from './poll-recorder.js';

export { PollRecorder } from './poll-recorder.js';
export { BURST } from './poll-limiter.js';

const BASE = '/:tenant/controller/v1/:controllerId';

export function ddiModule(services: Services): AppModule {
  const { ctx } = services;
  const recorder = new PollRecorder({ store: () => ctx.store, intervalMs: ctx.config.ddi.pollFlushMs, log: ctx.logger });
  const limiter = new PollLimiter();
  const auth = deviceAuthenticator(services);
  const route = (method: Route['method'], path: string, handler: Route['handler'], extra: Partial<Route> = {}): Route => ({
    method, path: `${BASE}${path}`, handler, auth, name: `ddi ${method} ${path === '' ? '/' : path}`,
    cbor: true, ...extra,
  });
  const json = { produces: 'json' } as const;
  // replies without a body: hawkBit does not negotiate them, so no Accept header can make them fail
  const empty: Partial<Route> = { produces: 'other' };
  const routes: Route[] = [
    route('GET', '', pollHandler({ services, recorder, limiter }), { ...json, lane: pollLane({ services, recorder, limiter }) }),
    route('GET', '/deploymentBase/:actionId', deploymentBaseHandler(services), json),
    route('POST', '/deploymentBase/:actionId/feedback', deploymentFeedbackHandler(services), empty),
    route('GET', '/installedBase/:actionId', installedBaseHandler(services), json),
    route('PUT', '/installedBase', setRunningVersionHandler(services), empty),
    route('GET', '/cancelAction/:actionId', cancelActionHandler(services), json),
    route('POST', '/cancelAction/:actionId/feedback', cancelFeedbackHandler(services), empty),
    route('PUT', '/configData', configDataHandler(services), empty),
    route('GET', '/confirmationBase', confirmationBaseHandler(services, recorder), json),
    route('GET', '/confirmationBase/:actionId', confirmationActionHandler(services), json),
    route('POST', '/confirmationBase/:actionId/feedback', confirmationFeedbackHandler(services), empty),
    route('POST', '/confirmationBase/activateAutoConfirm', activateAutoConfirmHandler(services), empty),
    route('POST', '/confirmationBase/deactivateAutoConfirm', deactivateAutoConfirmHandler(services), { body: 'none', ...empty }),
    route('GET', '/softwaremodules/:softwareModuleId/artifacts', artifactListHandler(services), { ...json, etag: false }),
    route('GET', '/softwaremodules/:softwareModuleId/artifacts/:fileName', artifactDownloadHandler(services), { produces: 'other' }),
  ];
  return {
    name: 'ddi',
    schema: {},
    routes,
    async start() {
      recorder.start();
    },
    async stop() {
      await recorder.stop();
    },
  };
}
