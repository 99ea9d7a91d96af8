import { assign, setup } from 'xstate';
import type { ActionRecord, ActionStatus } from './action.js';
import { repeatsDownload, SERVER_MESSAGE_PREFIX } from './action.js';
import type { ActionEvent, Execution, FinishedResult, Report } from './action.events.js';
import type { Effect } from './effects.js';
import { FELL_BACK_SUFFIX, NOT_VERIFIED_PREFIX, VERIFIED_PREFIX } from './install-check.js';
import { TARGET } from './target.js';
import type { TargetEvent } from './target.machine.js';

/**
 * The lifecycle of one action (reference §1.5-1.7, §4.2). Context is the persisted ActionRecord; the
 * state value is its `status`. The machine emits two kinds of output as data, never I/O:
 * - `entry`: a status-history entry the runtime stores with the new snapshot;
 * - `effect`: a message to another actor (the target), delivered through the durable queue.
 */
export interface EntryParams {
  readonly type: ActionStatus;
  readonly messages: readonly string[];
  readonly code: number | null;
  readonly timestamp: number;
}

export const ACTION_MACHINE_VERSION = 1;

const server = (text: string): string => SERVER_MESSAGE_PREFIX + text;

/** Messages of a device report: its details, then the code line; a server line when it sent none. */
function reportMessages(e: Report & { execution?: Execution; finished?: FinishedResult }): string[] {
  const messages = [...e.details];
  if (e.code !== null) messages.push(`Device reported status code: ${e.code}`);
  if (messages.length === 0 && e.execution !== undefined) {
    const outcome = e.finished === 'success' ? ' with OK!' : e.finished === 'failure' ? ' with ERROR!' : '.';
    messages.push(server(`Target reported ${e.execution.toUpperCase()}${outcome}`));
  }
  return messages;
}

/** Status-history type of a deployment feedback (reference §1.5). */
export function feedbackEntryType(execution: Execution, finished: FinishedResult): ActionStatus {
  switch (execution) {
    case 'closed': return finished === 'failure' ? 'error' : 'finished';
    case 'downloaded': return 'downloaded';
    case 'download': return 'download';
    case 'canceled': return 'canceled';
    case 'rejected': return 'warning';
    case 'proceeding': case 'scheduled': case 'resumed': return 'running';
  }
}

/** Status-history type of a cancel feedback (reference §1.6). */
export function cancelEntryType(execution: Execution, finished: FinishedResult): ActionStatus {
  if (execution === 'closed') return finished === 'failure' ? 'error' : 'canceled';
  if (execution === 'rejected') return 'cancel_rejected';
  if (execution === 'canceled') return 'warning';
  return 'running';
}

type Ctx = ActionRecord;
type Ev = ActionEvent;

const isFeedback = (e: Ev, execution: Execution, result?: FinishedResult | 'notFailure'): boolean =>
  (e.type === 'device.feedback' || e.type === 'device.cancelFeedback') &&
  e.execution === execution &&
  (result === undefined || (result === 'notFailure' ? e.finished !== 'failure' : e.finished === result));

function entryFor(event: Ev): EntryParams | undefined {
  switch (event.type) {
    case 'device.feedback':
      return {
        type: feedbackEntryType(event.execution, event.finished), messages: reportMessages(event),
        code: event.code, timestamp: event.timestamp,
      };
    case 'device.cancelFeedback':
      return {
        type: cancelEntryType(event.execution, event.finished), messages: reportMessages(event),
        code: event.code, timestamp: event.timestamp,
      };
    case 'device.confirmed':
      return { type: 'running', messages: [server('Target confirmed the action.'), ...reportMessages(event)], code: event.code, timestamp: event.timestamp };
    case 'device.denied':
      return { type: 'wait_for_confirmation', messages: [server('Target rejected the action.'), ...reportMessages(event)], code: event.code, timestamp: event.timestamp };
    case 'device.retrieved':
      return {
        type: 'retrieved',
        messages: [server(event.cancel === true
          ? 'Target retrieved cancel action and should start now the cancellation.'
          : 'Target retrieved update action and should start now the download.')],
        code: null, timestamp: event.at,
      };
    case 'device.downloading':
      return { type: 'download', messages: [server(`Target downloads ${event.uri}`)], code: null, timestamp: event.at };
    case 'autoconfirm.activated':
      return {
        type: 'running',
        messages: [server(`Action auto-confirmed by initiator '${event.initiator ?? 'unknown'}'.`), ...(event.remark ? [event.remark] : [])],
        code: null, timestamp: event.at,
      };
    case 'group.started':
      return { type: event.confirm ? 'wait_for_confirmation' : 'running', messages: [server('Rollout group started.')], code: null, timestamp: event.at };
    case 'group.skipped':
      return { type: 'finished', messages: [server('Distribution Set is already assigned. Skipping this action.')], code: null, timestamp: event.at };
    case 'mgmt.cancel': {
      const why = event.reason === 'obsolete' ? 'cancel obsolete action due to new update'
        : event.reason === 'maintenance' ? 'cancel action: maintenance window expired'
        : event.reason === 'abort' ? 'cancel action: its rollout was aborted' : 'manual cancelation requested';
      return { type: 'canceling', messages: [server(why)], code: null, timestamp: event.at };
    }
    case 'mgmt.close':
      return { type: 'canceled', messages: [server('close obsolete action due to new update')], code: null, timestamp: event.at };
    case 'mgmt.forceQuit':
      return { type: 'canceled', messages: [server('A force quit has been performed.')], code: null, timestamp: event.at };
    case 'mgmt.force':
      return undefined;
    case 'engine.timedOut':
      return { type: 'error', messages: [server(event.message)], code: null, timestamp: event.at };
    case 'device.verified':
      return { type: 'finished', messages: [server(`${VERIFIED_PREFIX}${event.evidence}.`)], code: null, timestamp: event.at };
    case 'device.fellBack':
      return {
        type: 'error', messages: [server(`${NOT_VERIFIED_PREFIX}${event.evidence}${FELL_BACK_SUFFIX}`), ...reportMessages(event)],
        code: event.code, timestamp: event.timestamp,
      };
  }
}

const finalEffect = (state: ActionStatus, context: Ctx, event: Ev): Effect | undefined => {
  const at = event.at;
  if (event.type === 'group.skipped') return undefined; // the target keeps what it has (reference §4.2)
  const send = (e: TargetEvent): Effect => ({ type: 'send', to: { kind: TARGET, id: context.targetId }, event: e });
  switch (state) {
    case 'finished':
      return send({
        type: 'action.finished', ds: context.ds, action: context.id, at, reportedAt: 'timestamp' in event ? event.timestamp : at,
        downloadOnly: context.actionType === 'downloadonly', ...(verifies(context, event) ? { verify: true } : {}),
      });
    case 'error':
      return send({ type: 'action.failed', ds: context.ds, at });
    case 'downloaded':
      return send({ type: 'action.downloaded', ds: context.ds, at });
    case 'canceled':
      // the target's next assigned DS depends on its other actions: resolved by the effect handler
      return { type: 'target.actionCanceled', targetId: context.targetId, actionId: context.id, at };
    default:
      return undefined;
  }
};

/** A verifyInstall action closed with success by its device: it waits for the device to confirm (rollout-safety.ts). */
const verifies = (context: Ctx, event: Ev): boolean =>
  context.verifyInstall === true && context.actionType !== 'downloadonly' && event.type === 'device.feedback';

const verifiedEffect = ({ context, event }: { context: Ctx; event: Ev }): Effect =>
  ({ type: 'send', to: { kind: TARGET, id: context.targetId }, event: { type: 'action.verified', action: context.id, at: event.at } });

/** The audit fields every transition sets (the `touch` action). */
const touched = (context: Ctx, event: Ev): Partial<Ctx> => ({
  lastModifiedAt: event.at,
  lastModifiedBy: 'by' in event ? event.by : context.lastModifiedBy,
  lastStatusCode: 'code' in event && event.code !== null ? event.code : context.lastStatusCode,
});

/** The entry counters of a transition that writes a status entry (the `count` action). */
function counted(context: Ctx, event: Ev): Partial<Ctx> {
  const e = entryFor(event);
  if (e === undefined) return {};
  return { lastEntry: e.type, entries: context.entries + 1, lastDownload: event.type === 'device.downloading' ? event.uri : undefined };
}

/** Every transition: audit fields, the status-history entry, the entry counters. */
const STEP = [
  'touch',
  'count',
  { type: 'entry', params: ({ event }: { event: Ev }) => entryFor(event) },
] as const;
const to = (target: ActionStatus) => ({ target, actions: STEP });
const stay = { actions: STEP };
type GuardName =
  | 'finishedOk' | 'finishedFailed' | 'downloadOnlyDone' | 'downloadOnlyFinished' | 'downloadOnlyFailed' | 'cancelRefused' | 'notYetRetrieved'
  | 'newDownload' | 'confirmRequired';
const guarded = (guard: GuardName, target?: ActionStatus) => (target ? { guard, target, actions: STEP } : { guard, actions: STEP });
const final = (state: ActionStatus) => ({
  type: 'final' as const,
  entry: { type: 'effect' as const, params: ({ context, event }: { context: Ctx; event: Ev }) => finalEffect(state, context, event) },
});

/** What the device may do with an action it has (running, or retrieved), and what management may do. */
const OPEN = {
  'device.feedback': [
    guarded('finishedFailed', 'error'), guarded('finishedOk', 'finished'), guarded('downloadOnlyDone', 'downloaded'), stay,
  ],
  'device.downloading': guarded('newDownload'),
  'device.denied': to('wait_for_confirmation'),
  'mgmt.cancel': to('canceling'),
  'mgmt.close': to('canceled'),
  'mgmt.force': { guard: 'notForced' as const, actions: ['force' as const, 'touch' as const] },
  'engine.timedOut': { target: 'error' as const, actions: [...STEP, 'timedOut' as const] },
};

export const actionMachine = setup({
  types: { context: {} as Ctx, events: {} as Ev, input: {} as Ctx },
  actions: {
    /** A status-history entry for the event; the runtime stores it as a record with the snapshot. */
    entry: (_, _params: EntryParams | undefined) => {},
    /** A message through the effects queue; the runtime commits it with the snapshot. */
    effect: (_, _effect: Effect | undefined) => {},
    touch: assign(({ context, event }) => touched(context, event)),
    count: assign(({ context, event }) => counted(context, event)),
    force: assign({ actionType: 'forced' as const }),
    started: assign(({ event }) => ({ startedAt: event.at })),
    timedOut: assign({ timedOut: true }),
    verifyStart: assign(({ context, event }) => (verifies(context, event) ? { verifying: true } : {})),
    verifyEnd: assign({ verifying: false }),
  },
  guards: {
    finishedOk: ({ event }) => isFeedback(event, 'closed', 'notFailure'),
    finishedFailed: ({ event }) => isFeedback(event, 'closed', 'failure'),
    downloadOnlyDone: ({ context, event }) => context.actionType === 'downloadonly' && isFeedback(event, 'downloaded'),
    downloadOnlyFinished: ({ context, event }) => context.actionType === 'downloadonly' && isFeedback(event, 'closed', 'notFailure'),
    downloadOnlyFailed: ({ context, event }) => context.actionType === 'downloadonly' && isFeedback(event, 'closed', 'failure'),
    cancelRefused: ({ event }) => isFeedback(event, 'closed', 'failure') || isFeedback(event, 'rejected'),
    notYetRetrieved: ({ context }) => context.lastEntry !== 'retrieved',
    newDownload: ({ context, event }) => event.type === 'device.downloading' && !repeatsDownload(context, event.uri),
    confirmRequired: ({ event }) => event.type === 'group.started' && event.confirm,
    notForced: ({ context }) => context.actionType !== 'forced',
    verifying: ({ context }) => context.verifying === true,
  },
}).createMachine({
  id: 'action',
  initial: 'running',
  context: ({ input }) => input,
  states: {
    scheduled: {
      on: {
        'group.started': [
          { guard: 'confirmRequired', target: 'wait_for_confirmation', actions: [...STEP, 'started'] },
          { target: 'running', actions: [...STEP, 'started'] },
        ],
        'group.skipped': to('finished'),
        'mgmt.cancel': to('canceled'),
        'mgmt.close': to('canceled'),
      },
    },
    wait_for_confirmation: {
      on: {
        'device.confirmed': to('running'),
        'autoconfirm.activated': to('running'),
        'device.denied': stay,
        'mgmt.cancel': to('canceling'),
        'mgmt.close': to('canceled'),
        'mgmt.force': { guard: 'notForced', actions: ['force', 'touch'] },
      },
    },
    running: { on: { 'device.retrieved': guarded('notYetRetrieved', 'retrieved'), ...OPEN } },
    // fetching the action again after other reports records another retrieval (reference §4.2)
    retrieved: { on: { 'device.retrieved': guarded('notYetRetrieved'), ...OPEN } },
    canceling: {
      on: {
        'device.retrieved': guarded('notYetRetrieved'),
        'device.cancelFeedback': [guarded('finishedOk', 'canceled'), guarded('cancelRefused', 'running'), stay],
        'device.feedback': [guarded('finishedFailed', 'error'), guarded('finishedOk', 'finished'), stay],
        'device.downloading': guarded('newDownload'),
        'mgmt.forceQuit': to('canceled'),
      },
    },
    // a verifyInstall action waits here for its device to show the set or fall back (install-check.ts)
    finished: {
      entry: [final('finished').entry, 'verifyStart'],
      on: {
        'device.verified': { guard: 'verifying', actions: [...STEP, 'verifyEnd', { type: 'effect', params: verifiedEffect }] },
        'device.fellBack': { guard: 'verifying', target: 'error', actions: [...STEP, 'verifyEnd'] },
        'engine.timedOut': { guard: 'verifying', target: 'error', actions: [...STEP, 'verifyEnd', 'timedOut'] },
      },
    },
    error: final('error'),
    canceled: final('canceled'),
    // hawkBit takes one final report for a download-only action after DOWNLOADED (reference §4.2, "only DMF
    // can deliver it": DDI refuses feedback on closed actions before the machine sees it)
    downloaded: {
      entry: final('downloaded').entry,
      on: { 'device.feedback': [guarded('downloadOnlyFailed', 'error'), guarded('downloadOnlyFinished', 'finished')] },
    },
  },
});

/** The states whose `device.feedback` transitions end in `stay` (OPEN, and canceling's). */
const REPORTING: ReadonlySet<ActionStatus> = new Set(['running', 'retrieved', 'canceling']);

/**
 * What the machine does with the commonest event, a device's intermediate deployment report (any execution
 * but `closed` and `downloaded`, the only ones its guards look at) on an action in a reporting state: the
 * `stay` transition, whose actions are STEP's, with no guard, target or effect. Computed here without
 * xstate's snapshot and transition, from the same action functions; undefined for every other event and
 * state (the machine decides those). test/unit/domain/action-report-step.test.ts proves it equal to the
 * machine over every state and report.
 */
export function reportStay(record: ActionRecord, event: Ev): { readonly record: ActionRecord; readonly entry: EntryParams } | undefined {
  if (event.type !== 'device.feedback' || event.execution === 'closed' || event.execution === 'downloaded' || !REPORTING.has(record.status)) return undefined;
  const entry = entryFor(event);
  if (entry === undefined) return undefined;
  const touchedRecord = { ...record, ...touched(record, event) };
  return { record: { ...touchedRecord, ...counted(touchedRecord, event) }, entry };
}
