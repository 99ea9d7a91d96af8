/**
 * The Direct Device Integration API (`/{tenant}/controller/v1/{controllerId}/...`): every route,
 * each behind the device authenticator, and the write-behind poll recorder, flushed on stop.
 * @see reference/hawkbit-api.md §1, §2; spec 4.8, 5
 */
import type { AppModule } from '../module.js';
import type { DdiDeps } from './deps.js';
import { z } from 'zod';
import type { QueryDoc, Route, RouteDoc } from '../http/types.js';
import { artifactDownloadHandler, artifactListHandler } from './artifacts.js';
import { configDataHandler } from './config-data.js';
import {
  activateAutoConfirmHandler, confirmationActionHandler, confirmationBaseHandler, confirmationFeedbackHandler, deactivateAutoConfirmHandler,
} from './confirmation.js';
import { deploymentBaseHandler, installedBaseHandler, setRunningVersionHandler } from './deployment-base.js';
import { deploymentLane } from './deployment-lane.js';
import { downloadLane } from './download-lane.js';
import { deviceAuthenticator } from './device.js';
import { cancelActionHandler, cancelFeedbackHandler, deploymentFeedbackHandler } from './feedback.js';
import { pollHandler } from './poll.js';
import { pollLane } from './poll-lane.js';
import { PollLimiter } from './poll-limiter.js';
import { PollRecorder } from './poll-recorder.js';
import { activateAutoConfirmBody, assignedVersionBody, configDataBody, confirmationBody, feedbackBody } from './bodies.js';
import {
  cancelActionResponse, confirmationActionResponse, confirmationBaseResponse, ddiArtifactResponse, deploymentBaseResponse, pollResponse,
} from './responses.js';

export { PollRecorder } from './poll-recorder.js';
export { BURST } from './poll-limiter.js';

const BASE = '/:tenant/controller/v1/:controllerId';
const HISTORY: QueryDoc[] = [
  { name: 'actionHistory', type: 'integer', description: 'how many of the device\'s status messages to include (-1: all, at most 100)' },
  { name: 'c', type: 'integer', description: 'cache buster of the poll\'s link' },
];

export function ddiModule(services: DdiDeps): AppModule {
  const { ctx } = services;
  const recorder = new PollRecorder({ store: services.store, intervalMs: ctx.config.ddi.pollFlushMs, log: ctx.logger });
  const limiter = new PollLimiter(undefined, ctx.config.ddi.pollLimiter.exemptCidrs);
  const auth = deviceAuthenticator(services);
  const route = (method: Route['method'], path: string, handler: Route['handler'], extra: Partial<Route> = {}): Route => ({
    method, path: `${BASE}${path}`, handler, auth, name: `ddi ${method} ${path === '' ? '/' : path}`,
    cbor: true, ...extra,
  });
  const json = (doc: RouteDoc) => ({ produces: 'json', doc }) as const;
  // replies without a body: hawkBit does not negotiate them, so no Accept header can make them fail
  const empty = (doc: RouteDoc = {}): Partial<Route> => ({ produces: 'other', doc: { response: { status: 200 }, ...doc } });
  const routes: Route[] = [
    route('GET', '', pollHandler({ services, recorder, limiter }), {
      ...json({ summary: 'Poll: what the device should do next', response: pollResponse }), lane: pollLane({ services, recorder, limiter }),
    }),
    route('GET', '/deploymentBase/:actionId', deploymentBaseHandler(services), {
      ...json({ summary: 'The deployment of an action', query: HISTORY, response: deploymentBaseResponse }), lane: deploymentLane(services),
    }),
    route('POST', '/deploymentBase/:actionId/feedback', deploymentFeedbackHandler(services), empty({ summary: 'Report progress or the result', body: feedbackBody })),
    route('GET', '/installedBase/:actionId', installedBaseHandler(services),
      json({ summary: 'The deployment the device installed last', query: HISTORY, response: deploymentBaseResponse })),
    route('PUT', '/installedBase', setRunningVersionHandler(services), empty({ summary: 'Report the running version', body: assignedVersionBody })),
    route('GET', '/cancelAction/:actionId', cancelActionHandler(services), json({ summary: 'A cancellation to carry out', response: cancelActionResponse })),
    route('POST', '/cancelAction/:actionId/feedback', cancelFeedbackHandler(services), empty({ summary: 'Report on the cancellation', body: feedbackBody })),
    route('PUT', '/configData', configDataHandler(services), empty({ summary: "Send the device's attributes", body: configDataBody })),
    route('GET', '/confirmationBase', confirmationBaseHandler(services, recorder),
      json({ summary: 'Auto-confirmation state and the action waiting for confirmation', response: confirmationBaseResponse })),
    route('GET', '/confirmationBase/:actionId', confirmationActionHandler(services),
      json({ summary: 'An action waiting for confirmation', query: HISTORY, response: confirmationActionResponse })),
    route('POST', '/confirmationBase/:actionId/feedback', confirmationFeedbackHandler(services),
      empty({ summary: 'Confirm or deny an action', body: confirmationBody })),
    route('POST', '/confirmationBase/activateAutoConfirm', activateAutoConfirmHandler(services),
      empty({ summary: 'Switch auto-confirmation on', body: activateAutoConfirmBody, bodyOptional: true })),
    route('POST', '/confirmationBase/deactivateAutoConfirm', deactivateAutoConfirmHandler(services), { body: 'none', ...empty({ summary: 'Switch auto-confirmation off' }) }),
    route('GET', '/softwaremodules/:softwareModuleId/artifacts', artifactListHandler(services),
      { ...json({ summary: "A module's artifacts", response: z.array(ddiArtifactResponse) }), etag: false }),
    route('GET', '/softwaremodules/:softwareModuleId/artifacts/:fileName', artifactDownloadHandler(services), {
      produces: 'other', fileLane: downloadLane(services),
      doc: { summary: 'Download an artifact (or its .MD5SUM); Range requests honoured', response: { status: 200, contentType: 'application/octet-stream' } },
    }),
  ];
  return {
    name: 'ddi',
    routes,
    async start() {
      recorder.start();
    },
    async stop() {
      await recorder.stop();
    },
  };
}
