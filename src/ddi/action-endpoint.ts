/**
 * The one shape of the DDI action endpoints (`deploymentBase/{id}`, `installedBase/{id}`,
 * `cancelAction/{id}`, `confirmationBase/{id}` and their feedback): the device's known target (404
 * otherwise), the action id of the path, the request's own parameters, read before the first await,
 * then the action: 404 when it is missing, another target's, or in a status the endpoint does not
 * show; then the endpoint's own work.
 * @see reference/hawkbit-api.md §1.1 (notes: an action of another target is answered like a missing one)
 */
import type { z } from 'zod';
import { cancelLapsed, lapsed, maintenanceState } from '../device/active-actions.js';
import { checkMessageQuota } from '../device/reports.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { notFound } from '../domain/errors.js';
import type { WindowState } from '../domain/maintenance.js';
import { readJson } from '../http/json.js';
import type { Handler, Reply, Request } from '../http/types.js';
import type { Stored } from '../store/port.js';
import type { DdiDeps } from './deps.js';
import { device, requireTarget, type Device } from './device.js';
import { idParam, intQuery } from './params.js';

/** What an action endpoint serves: the request, its device, the device's action of the path and what `read` took. */
export interface ActionCall<P> {
  readonly req: Request;
  readonly d: Device;
  readonly action: Stored<ActionRecord>;
  readonly params: P;
}

export interface ActionEndpoint<P> {
  /** The query and the body, read and checked before the action is (the request is read before any await). */
  readonly read: (req: Request) => P;
  /** Whether the device may see the action here; 404 otherwise, as for a missing one. */
  readonly shows?: (action: ActionRecord) => boolean;
  /**
   * Read the action through the store's cached reads (as the poll and the device authenticator do;
   * kept coherent by the store), not from the store itself.
   */
  readonly cached?: boolean;
  readonly serve: (call: ActionCall<P>) => Promise<Reply>;
}

export function actionEndpoint<P>(deps: DdiDeps, endpoint: ActionEndpoint<P>): Handler {
  return async (req) => {
    const d = device(req);
    const target = requireTarget(d);
    const actionId = idParam(req, 'actionId');
    const params = endpoint.read(req);
    const action = await (endpoint.cached === true ? deps.store.cached : deps.store).get<ActionRecord>(d.tenant, ACTION, actionId);
    if (action === undefined || action.value.targetId !== target.id) throw notFound('Action', actionId);
    if (endpoint.shows !== undefined && !endpoint.shows(action.value)) throw notFound('Action', actionId);
    return endpoint.serve({ req, d, action, params });
  };
}

/** No parameters beyond the path. */
export const NO_PARAMS = (): undefined => undefined;

/** `actionHistory` (how many of the device's messages to show) of a deployment's fetch. */
export function historyParam(req: Request): number {
  return intQuery(req, 'actionHistory', 0);
}

/** `actionHistory`, and `c`: a cache buster only, but it must be a number as in hawkBit (the links that carry it). */
export function linkedFetchParams(req: Request): number {
  const history = historyParam(req);
  intQuery(req, 'c', -1);
  return history;
}

/** A report's body (`quick`: as readJson), its message count checked against the quota before the action is read. */
export function reportBody<S extends z.ZodType>(
  deps: Pick<DdiDeps, 'quotas'>, req: Request, schema: S, messages: (body: z.output<S>) => number,
  quick?: (value: unknown) => z.output<S> | undefined,
): z.output<S> {
  const body = readJson(req, schema, quick);
  checkMessageQuota(deps, messages(body));
  return body;
}

/**
 * The maintenance window state of an action the device fetches. An active action whose schedule has no
 * window left is canceled (reference §4.2) and answered 404.
 */
export async function windowOrGone(deps: DdiDeps, call: ActionCall<unknown>, now: number): Promise<WindowState | undefined> {
  const { action } = call;
  const state = maintenanceState(action.value, now);
  if (action.value.active && lapsed(state)) {
    await cancelLapsed(deps, call.d.tenant, action, now);
    throw notFound('Action', action.id);
  }
  return state;
}
