import { transition, type AnyStateMachine } from 'xstate';
import type { ActorEvent } from '../../../src/actors/runtime.js';

/** Hydrates a record the way the runtime does and applies one event; returns state, record and outputs. */
export function step<R extends object>(machine: AnyStateMachine, stateField: keyof R & string, record: R, event: ActorEvent) {
  const current = machine.resolveState({ value: record[stateField] as string, context: record });
  const [next, actions] = transition(machine, current, event);
  const outputs = actions as unknown as { type: string; params?: unknown }[];
  return {
    state: next.value as string,
    record: next.context as R,
    changed: next !== current,
    entries: outputs.filter((a) => a.type === 'entry' && a.params !== undefined).map((a) => a.params as { type: string; messages: string[]; code: number | null }),
    effects: outputs.filter((a) => a.type === 'effect' && a.params !== undefined).map((a) => a.params as Record<string, unknown>),
  };
}
