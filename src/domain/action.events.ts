/**
 * What an action is told: the events of its machine (action.machine.ts), from devices (reports), from
 * its rollout group and from the Management API. Apart from the machine so that the actor kinds
 * (kinds.ts) name them without importing the machine, which emits effects typed by those kinds.
 * @see reference/hawkbit-api.md sections 1.5-1.7, 4.2
 */
export const EXECUTIONS = ['closed', 'proceeding', 'canceled', 'scheduled', 'rejected', 'resumed', 'downloaded', 'download'] as const;
export type Execution = (typeof EXECUTIONS)[number];
export const FINISHED_RESULTS = ['success', 'failure', 'none'] as const;
export type FinishedResult = (typeof FINISHED_RESULTS)[number];

export type Report = {
  readonly at: number;
  readonly timestamp: number;
  readonly code: number | null;
  readonly details: readonly string[];
};

export type ActionEvent =
  | ({ readonly type: 'device.feedback'; readonly execution: Execution; readonly finished: FinishedResult } & Report)
  | ({ readonly type: 'device.cancelFeedback'; readonly execution: Execution; readonly finished: FinishedResult } & Report)
  | ({ readonly type: 'device.confirmed' } & Report)
  | ({ readonly type: 'device.denied' } & Report)
  /** `cancel`: the device fetched the cancellation (DDI cancelAction), not the deployment. */
  | { readonly type: 'device.retrieved'; readonly at: number; readonly cancel?: boolean }
  | { readonly type: 'device.downloading'; readonly at: number; readonly uri: string }
  | { readonly type: 'autoconfirm.activated'; readonly at: number; readonly initiator: string | null; readonly remark: string | null }
  | { readonly type: 'group.started'; readonly at: number; readonly confirm: boolean }
  /** Its group started, but the target had the set assigned already: finished without a deployment. */
  | { readonly type: 'group.skipped'; readonly at: number }
  | { readonly type: 'mgmt.cancel'; readonly at: number; readonly by: string; readonly reason: 'manual' | 'obsolete' | 'maintenance' | 'abort' }
  | { readonly type: 'mgmt.close'; readonly at: number; readonly by: string }
  | { readonly type: 'mgmt.forceQuit'; readonly at: number; readonly by: string }
  | { readonly type: 'mgmt.force'; readonly at: number; readonly by: string }
  /** verifyInstall: after its success feedback the device showed the set (`evidence`: how; install-check.ts). */
  | { readonly type: 'device.verified'; readonly at: number; readonly evidence: string }
  /** verifyInstall: after its success feedback the device showed another set, or reported failure (it fell back to the old set). */
  | ({ readonly type: 'device.fellBack'; readonly evidence: string } & Report)
  /** Its rollout's actionTimeout ran out (`message`: which limit, rollout-safety.ts): closed as an error. */
  | { readonly type: 'engine.timedOut'; readonly at: number; readonly message: string };
