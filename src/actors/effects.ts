import { ACTION, type ActionRecord } from '../domain/action.js';
import type { ActorKind, EventOf } from '../domain/kinds.js';
import { TARGET } from '../domain/target.js';
import type { Store, Tenant } from '../store/port.js';
import type { EffectHandlers } from './dispatcher.js';
import type { ActorRuntime } from './runtime.js';

/** The DS of the target's oldest still-active action, or null when none is left. */
export async function oldestActiveDs(store: Pick<Store, 'members' | 'getMany'>, tenant: string, targetId: number): Promise<number | null> {
  const page = await store.members(tenant, ACTION, 'activeByTarget', String(targetId), { offset: 0, limit: 1000 });
  const actions = await store.getMany<ActionRecord>(tenant, ACTION, page.ids);
  let oldest: ActionRecord | undefined;
  for (const a of actions) if (a?.value.active && (!oldest || a.value.id < oldest.id)) oldest = a.value;
  return oldest ? oldest.ds : null;
}

/** The handlers of every effect type the machines emit (domain/effects.ts). */
export function effectHandlers(store: Store, runtime: ActorRuntime): EffectHandlers {
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
  };
}

async function deliver<K extends ActorKind>(
  runtime: ActorRuntime, tenant: Tenant, to: { readonly kind: K; readonly id: number }, event: EventOf<K>, dedupe: string,
): Promise<void> {
  await runtime.send(tenant, to.kind, to.id, event, { dedupe });
}
