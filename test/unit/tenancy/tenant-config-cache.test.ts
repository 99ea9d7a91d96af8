/**
 * The tenant configuration cache of the poll hot path: a reload that finds the record unchanged keeps
 * the view object (the poll memoises per view), a reload never waits the caller, and another
 * instance's write is seen after the reload it triggers.
 */
import { describe, expect, it, vi } from 'vitest';
import { SCHEMA } from '../../../src/app/schema.js';
import { openMemoryStore } from '../../../src/store/index.js';
import { TenantConfigService } from '../../../src/tenancy/tenant-config-service.js';
import { builtInDefaults } from '../../../src/domain/tenant-config.js';

const T = 'T1';

function twoInstances() {
  const store = openMemoryStore(SCHEMA);
  let now = 1_000_000;
  const clock = (): number => now;
  const make = (): TenantConfigService => new TenantConfigService({ store, globals: builtInDefaults(), ttlMs: 1000, clock });
  return { a: make(), b: make(), advance: (ms: number) => { now += ms; } };
}

/** Lets a background reload run (an unchanged reload shows nothing to wait for: the view stays the same object). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

describe('tenant configuration cache', () => {
  it('keeps the same view object across reloads while nothing changed', async () => {
    const { a, advance } = twoInstances();
    const first = await a.view(T);
    for (let i = 0; i < 3; i++) {
      advance(1500);
      expect(a.cachedView(T)).toBe(first); // past the ttl: still answered, a reload starts
      await settle();
      expect(a.cachedView(T)).toBe(first); // reloaded, unchanged: the same object
    }
  });

  it("serves the cached view while reloading, then another instance's write", async () => {
    const { a, b, advance } = twoInstances();
    const before = await a.view(T);
    expect(before.get('pollingTime')).not.toBe('00:02:00');
    await b.set(T, { pollingTime: '00:02:00' }, 'admin', 1);
    expect(a.cachedView(T)).toBe(before); // within the ttl
    advance(1500);
    expect(a.cachedView(T)).toBe(before); // the reload runs in the background
    const after = await vi.waitFor(() => {
      const reloaded = a.cachedView(T);
      expect(reloaded).not.toBe(before);
      return reloaded;
    }, { timeout: 5000, interval: 5 });
    expect(after?.get('pollingTime')).toBe('00:02:00');
  });

  it('stops answering from the cache when no reload succeeded for ten ttls', async () => {
    const { a, advance } = twoInstances();
    const view = await a.view(T);
    advance(10_500);
    expect(a.cachedView(T)).toBeUndefined(); // the caller loads (and would see a store error)
    await vi.waitFor(() => expect(a.cachedView(T)).toBe(view), { timeout: 5000, interval: 5 });
  });
});
