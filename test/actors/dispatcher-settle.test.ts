/**
 * settle across event loops: with `server.workers`, each loop's dispatcher consumes the same queue,
 * so the effects a request of one loop committed may be handled by another loop's dispatcher. The
 * waiting request hears of them all the same (src/actors/dispatcher.ts, BroadcastChannel); only a
 * settle that gives up counts as a timeout.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EffectDispatcher, type BatchedEffect, type EffectHandlers } from '../../src/actors/dispatcher.js';
import { effectHandlers } from '../../src/actors/effect-handlers.js';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import type { DmfEffect } from '../../src/domain/effects.js';
import { openMemoryStore } from '../../src/store/memory/index.js';

const tenant = 'T';
const quiet = { warn: () => {}, error: () => {} };

describe('effects dispatcher: settle', () => {
  it('goes on when another dispatcher of the process handled the effects, also for a settle that starts after', async () => {
    const store = openMemoryStore(SCHEMA);
    const publish = async (effects: readonly BatchedEffect<DmfEffect>[]): Promise<readonly boolean[]> => effects.map(() => true);
    const handlers: EffectHandlers = effectHandlers({ store, runtime: new ActorRuntime(store, ACTORS), dmf: { publish }, log: quiet });
    let timeouts = 0;
    const onSettleTimeout = (): void => void timeouts++;
    // the committing loop's dispatcher reads nothing: another loop's takes every effect
    const committing = new EffectDispatcher(store, { consumer: 'loop-0', tenants: () => [], handlers, log: quiet, blockMs: 10, onSettleTimeout });
    const other = new EffectDispatcher(store, { consumer: 'loop-1', tenants: () => [tenant], handlers, log: quiet, blockMs: 10 });
    const ids = [randomUUID(), randomUUID()];
    const effects: DmfEffect[] = [{ type: 'dmf.next', targetId: 1 }, { type: 'dmf.next', targetId: 2 }];
    expect((await store.commit(tenant, { writes: [], effects: effects.map((e, i) => ({ ...e, eid: ids[i] })) })).ok).toBe(true);
    committing.start();
    try {
      const settled = committing.settle(ids, 10_000);
      other.start();
      expect(await settled).toBe(true);
      // the news came before this one started waiting
      expect(await committing.settle([ids[0]!], 10_000)).toBe(true);
      expect(timeouts).toBe(0);
      // an effect nobody handles: the settle gives up and says so
      expect(await committing.settle([randomUUID()], 20)).toBe(false);
      expect(timeouts).toBe(1);
    } finally {
      await Promise.all([committing.stop(), other.stop()]);
    }
  });
});
