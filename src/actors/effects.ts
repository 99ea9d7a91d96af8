import type { EventObject } from 'xstate';
import type { Effect, Store } from '../store/port.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { TARGET } from '../domain/target.js';
import type { EffectHandler } from './dispatcher.js';
import type { ActorRuntime } from './runtime.js';

/** The DS of the target's oldest still-active action, or null when none is left. */
export async function oldestActiveDs(store: Store, tenant: string, targetId: number): Promise<number | null> {
  const page = await store.members(tenant, ACTION, 'activeByTarget', String(targetId), { offset: 0, limit: 1000 });
  const actions = await store.getMany<ActionRecord>(tenant, ACTION, page.ids);
  let oldest: ActionRecord | undefined;
  for (const a of actions) if (a?.value.active && (!oldest || a.value.id < oldest.id)) oldest = a.value;
  return oldest ? oldest.ds : null;
}

/** The handlers of every effect type the machines emit. */
export function effectHandlers(store: Store, runtime: ActorRuntime): Record<string, EffectHandler> {
  return {
    /** Deliver an event to another actor, at most once. */
    send: async (tenant, effect, dedupe) => {
      const to = effect['to'] as { kind: string; id: number };
      await runtime.send(tenant, to.kind, to.id, effect['event'] as EventObject, { dedupe });
    },
    /** An action ended by cancellation: the target falls back to its next active action, or in sync. */
    'target.actionCanceled': async (tenant, effect: Effect, dedupe) => {
      const targetId = effect['targetId'] as number;
      const nextDs = await oldestActiveDs(store, tenant, targetId);
      await runtime.send(tenant, TARGET, targetId, { type: 'action.canceled', nextDs, at: effect['at'] as number } as EventObject, { dedupe });
    },
  };
}
