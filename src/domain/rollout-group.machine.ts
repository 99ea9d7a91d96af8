import { assign, setup } from 'xstate';
import type { RolloutGroupRecord } from './rollout.js';

/**
 * A rollout group's status as a machine (reference §4.7: CREATING → READY → SCHEDULED → RUNNING →
 * FINISHED | ERROR). Only the rollout engine sends it events. Its counts are not in the record: the
 * actions of the group increment store counters in their own commits, and the engine evaluates
 * them (rollout-counts.ts), so thousands of finishing actions never contend on this record.
 */
export type RolloutGroupEvent =
  | { readonly type: 'engine.filled'; readonly at: number; readonly totalTargets: number }
  /** Its actions exist, scheduled. */
  | { readonly type: 'engine.scheduled'; readonly at: number }
  | { readonly type: 'engine.started'; readonly at: number }
  /** Its success condition held and its success action ran; it keeps running until complete. */
  | { readonly type: 'engine.succeeded'; readonly at: number }
  /** Complete, or the rollout stopped or is deleted (remaining groups are finished). */
  | { readonly type: 'engine.finished'; readonly at: number }
  /** Its error condition held (`reason`: the counts against the threshold, for the log). */
  | { readonly type: 'engine.failed'; readonly at: number; readonly reason?: string }
  /** It met its success condition and its successors wait until `until` (the rollout's soak). */
  | { readonly type: 'engine.soaking'; readonly at: number; readonly until: number }
  /** A dynamic group took more targets: it holds `totalTargets` now. */
  | { readonly type: 'engine.grown'; readonly at: number; readonly totalTargets: number };

/** Bump when states or context change shape; stored with each snapshot. */
export const ROLLOUT_GROUP_MACHINE_VERSION = 1;

const touch = ['touch'] as const;
const finish = { 'engine.finished': { target: 'finished', actions: touch } } as const;
const grow = { 'engine.grown': { actions: ['filled', 'touch'] } } as const;

export const rolloutGroupMachine = setup({
  types: { context: {} as RolloutGroupRecord, events: {} as RolloutGroupEvent, input: {} as RolloutGroupRecord },
  actions: {
    touch: assign(({ event }) => ({ lastModifiedAt: event.at })),
    filled: assign(({ event }) => (event.type === 'engine.filled' || event.type === 'engine.grown' ? { totalTargets: event.totalTargets } : {})),
    succeeded: assign({ successHandled: true }),
    soak: assign(({ event }) => (event.type === 'engine.soaking' ? { soakUntil: event.until } : {})),
  },
  guards: {
    notYetSucceeded: ({ context }) => !context.successHandled,
    notYetSoaking: ({ context }) => context.soakUntil === undefined,
  },
}).createMachine({
  id: 'rolloutGroup',
  initial: 'creating',
  context: ({ input }) => input,
  states: {
    creating: { on: { 'engine.filled': { target: 'ready', actions: ['filled', 'touch'] }, ...finish } },
    ready: { on: { 'engine.scheduled': { target: 'scheduled', actions: touch }, ...grow, ...finish } },
    scheduled: { on: { 'engine.started': { target: 'running', actions: touch }, ...grow, ...finish } },
    running: {
      on: {
        'engine.succeeded': { guard: 'notYetSucceeded', actions: ['succeeded', 'touch'] },
        'engine.failed': { target: 'error', actions: touch },
        'engine.soaking': { guard: 'notYetSoaking', actions: ['soak', 'touch'] },
        ...grow,
        ...finish,
      },
    },
    finished: {},
    error: {},
  },
});
