/**
 * What the DDI express lanes (poll-lane.ts, deployment-lane.ts, download-lane.ts) look up the same way:
 * a tenant by the path's spelling of it, and the token modes of a tenant's configuration view.
 */
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { Tenants } from '../tenancy/registry.js';
import { laneToken, tokenModes, type AuthSwitches, type TokenModes } from './auth.js';
import { knownTenant } from './device.js';

/** A tenant by the path's spelling of it, with what a lane keeps for it (`make`: made at the first request). */
export interface Spellings<T extends { readonly tenant: string }> {
  /**
   * The value for the tenant a path spells, or undefined for no known tenant; a bounded number of spellings
   * is remembered, and a tenant deleted at runtime no longer counts (src/tenancy/registry.ts).
   */
  of(pathTenant: string): T | undefined;
  /** The values of the spellings remembered. */
  values(): IterableIterator<T>;
}

export function bySpelling<T extends { readonly tenant: string }>(known: Pick<Tenants, 'has'>, make: (tenant: string) => T): Spellings<T> {
  const spellings = new Map<string, T>();
  return {
    of(pathTenant) {
      let value = spellings.get(pathTenant);
      if (value !== undefined && !known.has(value.tenant)) return undefined;
      if (value === undefined) {
        const tenant = knownTenant(pathTenant, known);
        if (tenant === undefined) return undefined;
        value = make(tenant);
        if (spellings.size < 1024) spellings.set(pathTenant, value);
      }
      return value;
    },
    values: () => spellings.values(),
  };
}

/** The token modes of a configuration view, the gateway key as a lane compares it (laneToken); once per view. */
export function laneModes(system: AuthSwitches): (config: TenantConfigView) => TokenModes {
  const modesOf = new WeakMap<TenantConfigView, TokenModes>();
  return (config) => {
    let m = modesOf.get(config);
    if (m === undefined) {
      const t = tokenModes(config, system);
      modesOf.set(config, (m = { targetToken: t.targetToken, gatewayKey: laneToken(t.gatewayKey) }));
    }
    return m;
  };
}
