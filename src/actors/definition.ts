import type { AnyStateMachine } from 'xstate';

/**
 * How the runtime hydrates and persists one kind of actor. The persisted record IS the snapshot:
 * its `stateField` holds the machine's state value and the whole record is the machine's context,
 * so queries and indexes read plain fields and no XState internals are stored.
 */
export interface ActorDefinition<R extends { readonly id: number } = { readonly id: number }> {
  readonly kind: string;
  readonly machine: AnyStateMachine;
  readonly stateField: keyof R & string;
  /** Stamped on every persisted record as `_mv`; a record written by a newer machine is refused. */
  readonly machineVersion: number;
  /** Derived fields recomputed after every transition (e.g. an action's `active`). */
  readonly finalize?: (record: R) => R;
  /**
   * Turns the machine's `entry` outputs into records stored in the same commit (e.g. an action's
   * status history). Receives a fresh id for each entry.
   */
  readonly entries?: {
    readonly kind: string;
    readonly build: (record: R, params: unknown, id: number) => unknown;
  };
}

export const MACHINE_VERSION_FIELD = '_mv';
