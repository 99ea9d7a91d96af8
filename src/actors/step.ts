import { createActor, type AnyStateMachine, type EventObject } from 'xstate';
import type { ActionRecord } from '../domain/action.js';
import type { ActionEvent } from '../domain/action.events.js';
import { actionMachine, reportStay, type EntryParams } from '../domain/action.machine.js';
import type { Effect } from '../domain/effects.js';

/** What one event does to a persisted actor record, computed without I/O. */
export interface Step<R> {
  /** False when no transition was enabled, or it changed nothing: nothing is to be written. */
  readonly changed: boolean;
  /** The machine's state value after the event. */
  readonly state: string;
  /** The next record: the machine's context with the state value in its state field. */
  readonly record: R;
  /** Messages to other actors (the machine's `effect` outputs). */
  readonly effects: readonly Effect[];
  /** Status-history entries (the machine's `entry` outputs). */
  readonly entries: readonly EntryParams[];
}

type Executed = { readonly type: string; readonly params?: unknown };

/** The actions the transition under way handed to its scope's executor (transitions are synchronous). */
let executed: Executed[] = [];

/**
 * One inert actor scope per machine, what xstate's `transition` builds (createInertActorScope) on
 * every call: a throwaway actor, whose constructor computes the machine's initial snapshot, was a
 * third of a step's time. Sharing one is safe because our machines are flat and only assign and name
 * actions (no spawn, no delays, no sendTo, no inspection): nothing a transition does stays in the scope.
 */
type Scope = Parameters<AnyStateMachine['transition']>[2];
const scopes = new WeakMap<AnyStateMachine, Scope>();

function scopeOf(machine: AnyStateMachine): Scope {
  let scope = scopes.get(machine);
  if (scope === undefined) {
    const self = createActor(machine);
    scope = {
      self, id: '', sessionId: '', system: self.system,
      logger: () => undefined, defer: () => undefined, emit: () => undefined, stopChild: () => undefined,
      actionExecutor: (action) => void executed.push(action),
    };
    scopes.set(machine, scope);
  }
  return scope;
}

type Event = EventObject & { readonly [field: string]: unknown };

/**
 * The pure step of the actor runtime: what `machineStep` gives, computed without xstate for a device's
 * intermediate deployment report (the action machine's `reportStay`, proven equal to it by
 * test/unit/domain/action-report-step.test.ts), the commonest step. The runtime commits the result; the
 * machine tests call it directly.
 */
export function step<R extends object>(machine: AnyStateMachine, stateField: keyof R & string, record: R, event: Event): Step<R> {
  if (machine === actionMachine) {
    const stay = reportStay(record as unknown as ActionRecord, event as unknown as ActionEvent);
    if (stay !== undefined) {
      return { changed: true, state: stay.record.status, record: stay.record as unknown as R, effects: [], entries: [stay.entry] };
    }
  }
  return machineStep(machine, stateField, record, event);
}

/**
 * The step as xstate computes it: hydrate the record as a snapshot (its `stateField` is the state
 * value, the record the context), apply the event as XState's `transition` does, collect the outputs.
 */
export function machineStep<R extends object>(machine: AnyStateMachine, stateField: keyof R & string, record: R, event: Event): Step<R> {
  const current = machine.resolveState({ value: record[stateField] as string, context: record });
  const scope = scopeOf(machine);
  const actions: Executed[] = [];
  executed = actions;
  let next: typeof current;
  try {
    next = machine.transition(current, event, scope);
  } finally {
    executed = [];
  }
  const changed = next !== current && (actions.length > 0 || next.value !== current.value || next.context !== current.context);
  const effects: Effect[] = [];
  const entries: EntryParams[] = [];
  // xstate does not narrow `params` by action type (ToExecutableAction in its types.ts), hence the casts
  for (const action of actions) {
    if (action.params === undefined) continue;
    if (action.type === 'effect') effects.push(action.params as Effect);
    else if (action.type === 'entry') entries.push(action.params as EntryParams);
  }
  const state = next.value as string;
  return { changed, state, record: { ...(next.context as R), [stateField]: state }, effects, entries };
}
