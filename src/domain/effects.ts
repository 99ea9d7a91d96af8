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

/**
 * What an AMQP-connected (DMF) device must be told, queued in the commit of the change so that a crash
 * before the publish loses nothing. They name ids only: the DMF outbound port (src/dmf/outbound.ts)
 * reads the current state when it sends, and sends nothing when it no longer applies.
 * @see reference/hawkbit-api.md §9 (outbound messages)
 */
export type DmfEffect = Stamp & (
  /** DOWNLOAD_AND_INSTALL, DOWNLOAD or CONFIRM for this action (or its part of a batch). */
  | { readonly type: 'dmf.action'; readonly targetId: number; readonly actionId: number }
  /** CANCEL_DOWNLOAD for this action. */
  | { readonly type: 'dmf.cancel'; readonly targetId: number; readonly actionId: number }
  /** Whatever the target should work on now (its highest-priority active action), if anything. */
  | { readonly type: 'dmf.next'; readonly targetId: number }
  /** REQUEST_ATTRIBUTES_UPDATE. */
  | { readonly type: 'dmf.attributes'; readonly targetId: number }
  /** THING_DELETED; the target is gone, so the effect carries its controller id and address. */
  | { readonly type: 'dmf.deleted'; readonly controllerId: string; readonly address: string }
);

export type Effect = SendEffect | ActionCanceledEffect | DmfEffect;
export type EffectType = Effect['type'];
