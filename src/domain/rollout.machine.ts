import { assign, setup } from 'xstate';
import type { RolloutRecord } from './rollout.js';
import type { StopReason } from './rollout-safety.js';
import type { Pace } from './rollout-release.js';

/**
 * The rollout's status as a machine (reference §4.6). Context is the persisted RolloutRecord; the
 * state value is its `status`. Operators send `mgmt.*` events (start, pause, resume, stop, approve,
 * deny, delete), the rollout engine (src/scheduler/rollouts.ts) `engine.*` events when a step of its
 * work is done. An event a status does not take is ignored by the runtime, which the Management API
 * answers with 400 `rollout.illegalState`.
 */
export type RolloutEvent =
  /** All groups are filled: ready, or waiting for approval. */
  | { readonly type: 'engine.filled'; readonly at: number; readonly totalTargets: number }
  | { readonly type: 'mgmt.approve'; readonly at: number; readonly by: string; readonly remark: string | null }
  | { readonly type: 'mgmt.deny'; readonly at: number; readonly by: string; readonly remark: string | null }
  /** POST start, or the engine when `startAt` has come. */
  | { readonly type: 'mgmt.start'; readonly at: number; readonly by: string }
  /** Every group has its scheduled actions and the first group runs. */
  | { readonly type: 'engine.started'; readonly at: number }
  /** POST pause, or a group's error action / success action PAUSE (`by` is the engine then, `reason` says which). */
  | { readonly type: 'mgmt.pause'; readonly at: number; readonly by: string; readonly reason?: string }
  | { readonly type: 'mgmt.resume'; readonly at: number; readonly by: string }
  /** A dynamic rollout took more targets (`totalTargets` now) or appended a dynamic group (`groups` now). */
  | { readonly type: 'engine.grown'; readonly at: number; readonly totalTargets: number; readonly groups: readonly number[] }
  /** The engine released actions of a paced rollout (rollout-release.ts): the ramp's clock moves on. */
  | { readonly type: 'engine.released'; readonly at: number; readonly pace: Pace }
  /** The rollout's endAt came (release controls): it stops; `endBehaviour` stop lets running actions finish. */
  | { readonly type: 'engine.ended'; readonly at: number }
  /** No group is running or scheduled any more. */
  | { readonly type: 'engine.finished'; readonly at: number }
  | { readonly type: 'mgmt.stop'; readonly at: number; readonly by: string }
  /** Scheduled actions removed, groups finished, active actions canceled. */
  | { readonly type: 'engine.stopped'; readonly at: number }
  /** An abort criterion holds (rollout-safety.ts): stopped at once; the engine then handles its actions. */
  | { readonly type: 'engine.aborted'; readonly at: number; readonly reason: StopReason }
  /** The aborted rollout's actions are handled (scheduled removed, running canceled or left, rollback assigned). */
  | { readonly type: 'engine.abortHandled'; readonly at: number }
  | { readonly type: 'mgmt.delete'; readonly at: number; readonly by: string }
  /** Deleted softly: actions had run, so the rollout stays as `deleted: true`. */
  | { readonly type: 'engine.deleted'; readonly at: number };

/** Bump when states or context change shape; stored with each snapshot. */
export const ROLLOUT_MACHINE_VERSION = 1;

type Ev = RolloutEvent;
const touch = ['touch'] as const;
const to = (target: RolloutRecord['status']) => ({ target, actions: touch });
const end = { 'engine.ended': { target: 'stopping', actions: ['ended', 'touch'] } } as const;

export const rolloutMachine = setup({
  types: { context: {} as RolloutRecord, events: {} as Ev, input: {} as RolloutRecord },
  actions: {
    touch: assign(({ context, event }) => ({
      lastModifiedAt: event.at,
      lastModifiedBy: 'by' in event ? event.by : context.lastModifiedBy,
    })),
    filled: assign(({ event }) => (event.type === 'engine.filled' ? { totalTargets: event.totalTargets } : {})),
    grown: assign(({ event }) => (event.type === 'engine.grown' ? { totalTargets: event.totalTargets, groups: event.groups } : {})),
    decide: assign(({ event }) =>
      event.type === 'mgmt.approve' || event.type === 'mgmt.deny' ? { approveDecidedBy: event.by, approvalRemark: event.remark } : {}),
    deleted: assign({ deleted: true }),
    aborted: assign(({ event }) => (event.type === 'engine.aborted' ? { stopReason: event.reason, abortPending: true } : {})),
    abortHandled: assign({ abortPending: false }),
    // the engine's own bookkeeping: not a change an operator made, so lastModified stays
    ended: assign(({ event }) => (event.type === 'engine.ended' ? { endedAt: event.at } : {})),
    paced: assign(({ event }) => (event.type === 'engine.released' ? { pace: event.pace } : {})),
  },
  guards: {
    approvalNeeded: ({ context }) => context.approvalNeeded,
    abortPending: ({ context }) => context.abortPending === true,
  },
}).createMachine({
  id: 'rollout',
  initial: 'creating',
  context: ({ input }) => input,
  on: {
    // from any status but deleting and deleted (reference §4.6)
    'mgmt.delete': { target: '.deleting', actions: touch },
  },
  states: {
    creating: {
      on: {
        'engine.filled': [
          { guard: 'approvalNeeded', target: 'waiting_for_approval', actions: ['filled', 'touch'] },
          { target: 'ready', actions: ['filled', 'touch'] },
        ],
        'mgmt.stop': to('stopping'),
      },
    },
    waiting_for_approval: {
      on: {
        'mgmt.approve': { target: 'ready', actions: ['decide', 'touch'] },
        'mgmt.deny': { target: 'approval_denied', actions: ['decide', 'touch'] },
        'mgmt.stop': to('stopping'),
      },
    },
    approval_denied: { on: { 'mgmt.stop': to('stopping') } },
    ready: { on: { 'mgmt.start': to('starting'), 'mgmt.stop': to('stopping'), ...end } },
    starting: { on: { 'engine.started': to('running'), 'mgmt.stop': to('stopping'), ...end } },
    running: {
      on: {
        'mgmt.pause': to('paused'), 'engine.finished': to('finished'), 'mgmt.stop': to('stopping'), ...end,
        'engine.aborted': { target: 'stopped', actions: ['aborted', 'touch'] },
        'engine.grown': { actions: ['grown', 'touch'] },
        'engine.released': { actions: 'paced' },
      },
    },
    paused: { on: { 'mgmt.resume': to('running'), 'mgmt.stop': to('stopping'), ...end } },
    stopping: { on: { 'engine.stopped': to('stopped') } },
    stopped: { on: { 'engine.abortHandled': { guard: 'abortPending', actions: ['abortHandled', 'touch'] } } },
    finished: {},
    deleting: { on: { 'mgmt.delete': {}, 'engine.deleted': { target: 'deleted', actions: ['deleted', 'touch'] } } },
    deleted: { on: { 'mgmt.delete': {} } },
  },
});
