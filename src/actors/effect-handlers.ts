import type { ActionRecord } from '../domain/action.js';
import type { DmfEffect } from '../domain/effects.js';
import type { ActorKind, EventOf } from '../domain/kinds.js';
import { TARGET } from '../domain/target.js';
import { activeActionsOf } from '../store/named-reads.js';
import type { Store, Tenant } from '../store/port.js';
import type { BatchedEffect, BatchHandler, EffectHandlers } from './dispatcher.js';
import type { ActorObserver } from './runtime.js';
import type { ActorSender } from './roles.js';

/** The DS of the target's oldest still-active action, or null when none is left. */
export async function oldestActiveDs(store: Pick<Store, 'members' | 'getMany'>, tenant: string, targetId: number): Promise<number | null> {
  let oldest: ActionRecord | undefined;
  for (const a of await activeActionsOf(store, tenant, targetId)) if (!oldest || a.value.id < oldest.id) oldest = a.value;
  return oldest ? oldest.ds : null;
}

/**
 * The DMF connector's outbound side (src/dmf/outbound.ts): publishes the DMF messages of a read batch
 * at once; one flag per effect, true when it was sent or needs no message any more.
 */
export interface DmfOutboundPort {
  publish(effects: readonly BatchedEffect<DmfEffect>[]): Promise<readonly boolean[]>;
}

/** What the DMF connector plugs into the actors: the runtime's observer and the dispatcher's port. */
export interface DmfHooks {
  readonly observer: ActorObserver;
  readonly outbound: DmfOutboundPort;
}

export interface EffectDeps {
  readonly store: Pick<Store, 'members' | 'getMany'>;
  readonly runtime: ActorSender;
  /** Undefined while the DMF connector is off (`dmf.enabled: false`). */
  readonly dmf: DmfOutboundPort | undefined;
  readonly log: { error(obj: object, msg: string): void };
}

/** The handlers of every effect type (domain/effects.ts). */
export function effectHandlers({ store, runtime, dmf, log }: EffectDeps): EffectHandlers {
  // one object for every DMF type: a read batch's DMF effects are published together, in queue order
  const toDmf: BatchHandler<DmfEffect> = {
    batch: dmf !== undefined
      ? (effects) => dmf.publish(effects)
      : async (effects) => {
        // queued while the connector was on (or by an instance that has it on): nobody can send them here
        log.error({ effects: effects.map((e) => e.effect) }, 'DMF is off (dmf.enabled: false): dropping DMF messages');
        return effects.map(() => true);
      },
  };
  return {
    /** Deliver an event to another actor, at most once. */
    send: async (tenant, effect, dedupe) => {
      await deliver(runtime, tenant, effect.to, effect.event, dedupe);
    },
    /** An action ended by cancellation: the target falls back to its next active action, or in sync. */
    'target.actionCanceled': async (tenant, effect, dedupe) => {
      const nextDs = await oldestActiveDs(store, tenant, effect.targetId);
      await runtime.send(tenant, TARGET, effect.targetId, { type: 'action.canceled', nextDs, at: effect.at }, { dedupe });
    },
    'dmf.action': toDmf,
    'dmf.cancel': toDmf,
    'dmf.next': toDmf,
    'dmf.attributes': toDmf,
    'dmf.deleted': toDmf,
  };
}

async function deliver<K extends ActorKind>(
  runtime: ActorSender, tenant: Tenant, to: { readonly kind: K; readonly id: number }, event: EventOf<K>, dedupe: string,
): Promise<void> {
  await runtime.send(tenant, to.kind, to.id, event, { dedupe });
}
