import type { AnyStateMachine } from 'xstate';
import type { EntryParams } from '../domain/action.machine.js';
import type { ActorKind, RecordOf } from '../domain/kinds.js';
import type { CounterIncrement } from '../store/port.js';

/**
 * How the runtime hydrates and persists one kind of actor. The persisted record IS the snapshot:
 * its `stateField` holds the machine's state value and the whole record is the machine's context,
 * so queries and indexes read plain fields and no XState internals are stored.
 */
export interface ActorDefinition<K extends ActorKind> {
  readonly kind: K;
  readonly machine: AnyStateMachine;
  readonly stateField: keyof RecordOf<K> & string;
  /** Stamped on every persisted record as `_mv`; a record written by a newer machine is refused. */
  readonly machineVersion: number;
  /** Derived fields recomputed after every change (e.g. an action's `active`). */
  readonly finalize?: (record: RecordOf<K>) => RecordOf<K>;
  /**
   * Turns the machine's `entry` outputs into records stored in the same commit (e.g. an action's
   * status history). Receives a fresh id for each entry.
   */
  /**
   * Store counters every change of such a record moves, committed with it (`before` undefined: a
   * creation; `after` null: a removal); e.g. the per-status counts of a rollout group's actions.
   */
  readonly counters?: (before: RecordOf<K> | undefined, after: RecordOf<K> | null) => readonly CounterIncrement[];
  /**
   * Kinds whose events this kind's machine sends (`send` effects) are applied in the commit of the step
   * that sends them, instead of through the effects queue: the receiver is read, stepped and written
   * with compare-and-set beside the sender (e.g. an action's end and its target's new update status).
   * The receiver must live in the same tenant (it does: effects never cross tenants).
   */
  readonly follows?: readonly ActorKind[];
  readonly entries?: {
    readonly kind: string;
    readonly build: (record: RecordOf<K>, params: EntryParams, id: number) => unknown;
  };
}

/** One definition per actor kind: a kind added to domain/kinds.ts without one does not compile. */
export type ActorDefinitions = { readonly [K in ActorKind]: ActorDefinition<K> };

export const MACHINE_VERSION_FIELD = '_mv';
