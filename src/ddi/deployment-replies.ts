/**
 * deploymentBase served the way the poll is: a device's reply kept with its ETag and bytes, answered
 * again without reading, building or hashing anything while everything it was made from is the same.
 * It is keyed by the action's record as the store's cached reads hold it (replaced, never changed,
 * when the action changes; dropped when Redis reports that another process changed it), and holds while
 * the tenant's configuration view, the base URL (scheme, host, port), the path's tenant and controller
 * id are the ones it was made for and the set's modules are the ones it was made from (SetModules: the
 * set, its modules, their types, artifacts and artifact lists as the cached reads answer them).
 *
 * Only a fetch with nothing to do but answer is kept: no action history asked for, and an action
 * whose fetch changes nothing (inactive, or its last status entry `retrieved` already: the first fetch
 * records it, through the generic path) and whose body does not depend on the time (no maintenance
 * window, so none can lapse either; a time-forced action once its force time has passed). The generic
 * path (deployment-base.ts) and the express lane (deployment-lane.ts) answer from the same memo.
 * @see reference/hawkbit-api.md §1.1 row 5, §1.3, §1.4
 */
import type { ActionRecord } from '../domain/action.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { etagOf } from '../http/etag.js';
import { HAL_TYPE, JSON_TYPE } from '../http/negotiate.js';
import { jsonOf } from '../http/serialize.js';
import type { LaneReply, Reply, Request } from '../http/types.js';
import type { Stored } from '../store/port.js';
import type { Device } from './device.js';
import { deploymentValue } from './deployment-json.js';
import type { SetModules } from './set-modules-memo.js';

export interface DeploymentMemo {
  readonly config: TenantConfigView;
  readonly baseUrl: string;
  /** The Host header the base URL came from; undefined when a trusted proxy's headers made it. */
  readonly host: string | undefined;
  readonly pathTenant: string;
  readonly controllerId: string;
  readonly set: SetModules;
  readonly etag: string;
  readonly lane: { readonly hal: LaneReply; readonly json: LaneReply; readonly notModified: LaneReply };
  /** The generic path's reply, decoded from the bytes on its first answer from the memo and kept (memoReply). */
  reply: Reply | undefined;
}

// keyed by the cached action record: a replaced record drops its entry with it
const memos = new WeakMap<Stored<ActionRecord>, DeploymentMemo>();

/**
 * Whether a fetch of the action with no action history asked for may be answered from a memo: its
 * fetch has nothing to do (no `retrieved` to record, no window to cancel) and its body depends on
 * nothing but the records (no window, no time-forced action before its force time).
 */
export function keepable(a: ActionRecord, now: number): boolean {
  return a.maintenanceWindow === null && !(a.active && a.lastEntry !== 'retrieved') && !(a.actionType === 'timeforced' && now < a.forceTime);
}

/** The memo of the action's reply, if it still holds for this request and the set's current modules. */
export function heldMemo(action: Stored<ActionRecord>, req: Request, d: Device, set: SetModules | undefined): DeploymentMemo | undefined {
  const m = memos.get(action);
  if (
    m === undefined || m.set !== set || m.config !== d.config || m.baseUrl !== req.baseUrl
    || m.pathTenant !== d.pathTenant || m.controllerId !== d.controllerId
  ) {
    return undefined;
  }
  return m;
}

/** The memo of a cached action's reply (the lane checks that it holds). */
export function deploymentMemoOf(action: Stored<ActionRecord>): DeploymentMemo | undefined {
  return memos.get(action);
}

/** Builds the reply of a keepable fetch (see `keepable`) from the set's modules and keeps it. */
export function remember(action: Stored<ActionRecord>, req: Request, d: Device, set: SetModules, now: number): DeploymentMemo {
  const jsonText = jsonOf(deploymentValue(req, d, action.value, set.modules, { key: 'deployment', state: undefined, now }, undefined));
  const etag = etagOf(jsonText);
  const body = Buffer.from(jsonText);
  const memo: DeploymentMemo = {
    config: d.config, baseUrl: req.baseUrl, host: req.fromTrustedProxy ? undefined : req.headers['host'],
    pathTenant: d.pathTenant, controllerId: d.controllerId, set, etag,
    lane: {
      hal: Object.freeze({ status: 200, etag, contentType: HAL_TYPE, body }),
      json: Object.freeze({ status: 200, etag, contentType: JSON_TYPE, body }),
      notModified: Object.freeze({ status: 304, etag, contentType: '', body: EMPTY }),
    },
    reply: undefined,
  };
  memos.set(action, memo);
  return memo;
}
const EMPTY = Buffer.alloc(0);

/** The generic path's reply from a memo: the JSON text (decoded from the bytes once, then kept) with its ETag. */
export function memoReply(m: DeploymentMemo): Reply {
  return (m.reply ??= { status: 200, jsonText: m.lane.json.body.toString(), etag: m.etag });
}
