import type { ActorKind, EventOf } from './kinds.js';

/**
 * The messages actors send each other. A machine emits them as data (its `effect` action); the
 * runtime commits them with the transition, stamped with an id (`eid`), and the effects dispatcher
 * (src/actors/dispatcher.ts) delivers each through the durable queue to its handler exactly once.
 */
interface Stamp {
  /** Set by the runtime when it commits the effect; handlers dedupe on it. */
  readonly eid?: string;
}

/** Deliver an event to another actor (typed by the receiving kind). */
export type SendEffect = { readonly [K in ActorKind]: Stamp & {
  readonly type: 'send';
  readonly to: { readonly kind: K; readonly id: number };
  readonly event: EventOf<K>;
} }[ActorKind];

/** An action ended by cancellation: its target falls back to its next active action, or to in sync. */
export type ActionCanceledEffect = Stamp & {
  readonly type: 'target.actionCanceled';
  readonly targetId: number;
  readonly actionId: number;
  readonly at: number;
};

export type Effect = SendEffect | ActionCanceledEffect;
export type EffectType = Effect['type'];
