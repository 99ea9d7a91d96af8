import { describe, expect, it, vi } from 'vitest';
import { EffectDispatcher, type BatchedEffect, type EffectHandlers } from '../../src/actors/dispatcher.js';
import { effectHandlers } from '../../src/actors/effect-handlers.js';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import type { DmfEffect, Effect } from '../../src/domain/effects.js';
import { openMemoryStore } from '../../src/store/memory/index.js';
import type { Store } from '../../src/store/port.js';

const tenant = 'T';
const quiet = { warn: () => {}, error: () => {} };

async function queue(store: Store, effects: readonly Effect[]): Promise<void> {
  const result = await store.commit(tenant, { writes: [], effects: effects.map((e, i) => ({ ...e, eid: `e${i}` })) });
  expect(result.ok).toBe(true);
}

function dispatcher(store: Store, handlers: EffectHandlers, reclaimIdleMs = 50): EffectDispatcher {
  return new EffectDispatcher(store, { consumer: 'c', tenants: () => [tenant], handlers, log: quiet, reclaimIdleMs, blockMs: 10 });
}

const DMF: readonly DmfEffect[] = [
  { type: 'dmf.action', targetId: 1, actionId: 10 },
  { type: 'dmf.cancel', targetId: 1, actionId: 10 },
  { type: 'dmf.deleted', controllerId: 'dev', address: 'amqp://%2F/gw' },
  { type: 'dmf.next', targetId: 2 },
];

describe('effects dispatcher: batch handlers', () => {
  it('hands a read batch of every type sharing the object to one call, in queue order; retries only what it refused', async () => {
    const store = openMemoryStore(SCHEMA);
    const calls: string[][] = [];
    let refused = false;
    const publish = async (effects: readonly BatchedEffect<DmfEffect>[]): Promise<readonly boolean[]> => {
      calls.push(effects.map((e) => e.effect.type));
      // the cancel fails once (e.g. its publish was not confirmed): only it comes back, after reclaimIdleMs
      return effects.map((e) => {
        if (e.effect.type !== 'dmf.cancel' || refused) return true;
        refused = true;
        return false;
      });
    };
    const runtime = new ActorRuntime(store, ACTORS);
    const handlers = effectHandlers({ store, runtime, dmf: { publish }, log: quiet });
    await queue(store, DMF);
    const d = dispatcher(store, handlers);
    await vi.waitFor(async () => {
      await d.drain();
      expect(calls).toHaveLength(2);
    }, { timeout: 10_000 });
    expect(calls).toEqual([['dmf.action', 'dmf.cancel', 'dmf.deleted', 'dmf.next'], ['dmf.cancel']]);
    await new Promise((r) => setTimeout(r, 60)); // deliberately past reclaimIdleMs (50): an unacked effect would come back now
    expect(await d.drain()).toBe(0); // all acked
  });

  it('drops DMF effects with an error when the connector is off', async () => {
    const store = openMemoryStore(SCHEMA);
    const errors: object[] = [];
    const runtime = new ActorRuntime(store, ACTORS);
    const handlers = effectHandlers({ store, runtime, dmf: undefined, log: { error: (obj) => void errors.push(obj) } });
    await queue(store, DMF);
    const d = dispatcher(store, handlers);
    await d.drain();
    expect(errors).toEqual([{ effects: DMF.map((e, i) => ({ ...e, eid: `e${i}` })) }]);
    await new Promise((r) => setTimeout(r, 60)); // deliberately past reclaimIdleMs (50): an unacked effect would come back now
    expect(await d.drain()).toBe(0); // acked: nothing comes back
  });
});

describe('effects dispatcher: settle', () => {
  it('tells every waiter of a batch that its effect was handled, however many were handled in the same turn', async () => {
    const store = openMemoryStore(SCHEMA);
    const runtime = new ActorRuntime(store, ACTORS);
    const handled: number[] = [];
    const handlers: EffectHandlers = {
      ...effectHandlers({ store, runtime, dmf: undefined, log: quiet }),
      'target.actionCanceled': async (_tenant, effect) => { handled.push(effect.targetId); },
    };
    const effects: Effect[] = Array.from({ length: 40 }, (_, i) => ({ type: 'target.actionCanceled', targetId: i + 1, actionId: 100 + i, at: 1 }));
    const d = dispatcher(store, handlers);
    const waits = effects.map((_, i) => d.settle([`e${i}`], 1000));
    await queue(store, effects);
    d.start();
    try {
      expect(await Promise.all(waits)).toEqual(effects.map(() => true));
      expect(handled.sort((a, b) => a - b)).toEqual(effects.map((_, i) => i + 1));
      expect(await d.settle(['never-queued'], 50)).toBe(false);
      expect(await d.settle([])).toBe(true);
    } finally {
      await d.stop();
    }
  });
});
