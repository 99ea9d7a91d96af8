import { created } from '../domain/audit.js';
import {
  DS_TYPE, SM_TYPE, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord,
} from '../domain/repository.js';
import type { Store, Tenant, Write } from '../store/port.js';

/**
 * hawkBit's standard repository setup, created for every tenant that has none yet: module types
 * `os` (one per set) and `application` (any number), and set types `os` ("OS only") and `os_app`
 * ("OS with app(s)"). Idempotent and safe when several instances start at once: the unique keys
 * decide, a lost race changes nothing.
 */
const INT_MAX = 2_147_483_647;

export async function bootstrapTenant(store: Store, tenant: Tenant, now: number): Promise<void> {
  if ((await store.lookup(tenant, SM_TYPE, 'key', 'os')) !== undefined) return;
  const audit = created('system', now);
  const first = await store.nextIds(tenant, SM_TYPE, 2);
  const os: SoftwareModuleTypeRecord = {
    id: first, key: 'os', name: 'OS', description: 'Core firmware or operation system', colour: null, maxAssignments: 1, deleted: false, ...audit,
  };
  const app: SoftwareModuleTypeRecord = {
    id: first + 1, key: 'application', name: 'Application', description: 'Application Addons', colour: null, maxAssignments: INT_MAX, deleted: false, ...audit,
  };
  const ds = await store.nextIds(tenant, DS_TYPE, 2);
  const osOnly: DistributionSetTypeRecord = {
    id: ds, key: 'os', name: 'OS only', description: 'Default type with Firmware/OS only.', colour: null,
    mandatory: [os.id], optional: [], deleted: false, ...audit,
  };
  const osApp: DistributionSetTypeRecord = {
    id: ds + 1, key: 'os_app', name: 'OS with app(s)', description: 'Default type with Firmware/OS and optional app(s).', colour: null,
    mandatory: [os.id], optional: [app.id], deleted: false, ...audit,
  };
  const writes: Write[] = [
    ...[os, app].map((r) => ({ kind: SM_TYPE, id: r.id, expect: 0, after: r })),
    ...[osOnly, osApp].map((r) => ({ kind: DS_TYPE, id: r.id, expect: 0, after: r })),
  ];
  await store.commit(tenant, { writes });
}
