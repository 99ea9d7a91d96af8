import type { Page, PollRecord, ReadEffectsOptions, Tenant } from './port.js';

/** Argument checks shared by both adapters. A failed check is a caller bug: it throws, it is not an outcome. */

export function checkTenant(tenant: unknown): asserts tenant is string {
  if (typeof tenant !== 'string' || tenant.length === 0) throw new TypeError(`tenant must be a non-empty string, got ${JSON.stringify(tenant)}`);
}

export function checkKind(kind: unknown): asserts kind is string {
  if (typeof kind !== 'string' || kind.length === 0 || kind.includes(':')) {
    throw new TypeError(`kind must be a non-empty string without ':', got ${JSON.stringify(kind)}`);
  }
}

export function checkId(id: unknown, what = 'id'): asserts id is number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new TypeError(`${what} must be a positive safe integer, got ${String(id)}`);
}

export function checkPollRecord(p: PollRecord & { readonly id: number }): void {
  checkId(p.id, 'poll record id');
  if (typeof p.at !== 'number' || !Number.isFinite(p.at)) throw new TypeError(`poll record ${p.id}: time must be a finite number, got ${String(p.at)}`);
}

export function checkPage(page: Page): void {
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new RangeError(`page offset must be an integer >= 0, got ${page.offset}`);
  if (!Number.isSafeInteger(page.limit) || page.limit < 0) throw new RangeError(`page limit must be an integer >= 0, got ${page.limit}`);
}

export function checkCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`count must be an integer >= 1, got ${count}`);
}

export function checkRange(min: number, max: number): void {
  if (typeof min !== 'number' || typeof max !== 'number' || Number.isNaN(min) || Number.isNaN(max)) {
    throw new RangeError(`range bounds must be numbers, got ${String(min)}..${String(max)}`);
  }
}

export function checkReadOptions(tenants: readonly Tenant[], o: ReadEffectsOptions): void {
  if (tenants.length === 0) throw new TypeError('readEffects needs at least one tenant');
  for (const t of tenants) checkTenant(t);
  if (typeof o.consumer !== 'string' || o.consumer.length === 0) throw new TypeError('readEffects needs a consumer name');
  checkCount(o.count);
  if (!Number.isSafeInteger(o.blockMs) || o.blockMs < 0) throw new RangeError(`blockMs must be an integer >= 0, got ${o.blockMs}`);
  if (!Number.isSafeInteger(o.reclaimIdleMs) || o.reclaimIdleMs < 0) throw new RangeError(`reclaimIdleMs must be an integer >= 0, got ${o.reclaimIdleMs}`);
}

export function checkLease(name: string, owner: string, ttlMs: number): void {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('a lease needs a name');
  if (typeof owner !== 'string' || owner.length === 0) throw new TypeError('a lease needs an owner');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new RangeError(`lease ttlMs must be an integer >= 1, got ${ttlMs}`);
}
