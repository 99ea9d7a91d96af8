import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { EffectDispatcher } from '../../src/actors/dispatcher.js';
import { effectHandlers } from '../../src/actors/effect-handlers.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION } from '../../src/domain/action.js';
import { TARGET } from '../../src/domain/target.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { anAction, aTarget } from '../fixtures/records.js';

/** One "server instance": its own store connection, runtime and dispatcher. */
export interface Instance {
  readonly store: Store;
  readonly runtime: ActorRuntime;
  readonly dispatcher: EffectDispatcher;
  close(): Promise<void>;
}

const quiet = { warn: () => {}, error: (obj: object, msg: string) => console.error(msg, obj) };

export async function openInstance(kind: 'memory' | 'redis', redisUrl: string | undefined, tenant: string, consumer: string, reclaimIdleMs = 15_000): Promise<Instance> {
  const store = await openStore({ kind, redisUrl, schema: SCHEMA });
  const runtime = new ActorRuntime(store, ACTORS);
  const dispatcher = new EffectDispatcher(store, {
    consumer, tenants: () => [tenant], log: quiet, reclaimIdleMs, blockMs: 50,
    handlers: effectHandlers({ store, runtime, dmf: undefined, log: quiet }),
  });
  return { store, runtime, dispatcher, close: async () => { await dispatcher.stop(); await store.close(); } };
}

/** A target with one running action for DS 7, as an assignment leaves them. */
export async function seedAssigned(runtime: ActorRuntime, tenant: string): Promise<void> {
  const created = await runtime.create(tenant, TARGET, aTarget({ id: 1, updateStatus: 'pending', assignedDs: 7 }));
  if (!created.ok) throw new Error('seed target failed');
  const action = await runtime.create(tenant, ACTION, anAction({ id: 10, targetId: 1, ds: 7 }));
  if (!action.ok) throw new Error('seed action failed');
}
