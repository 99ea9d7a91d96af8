import { created } from '../domain/audit.js';
import {
  DS_TYPE, SM_TYPE, STANDARD_TYPE_KEYS as KEYS, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord,
} from '../domain/repository.js';
import type { Store, Tenant, Write } from '../store/port.js';
import { TENANT_CONFIG, type TenantConfigRecord } from './tenant-config-service.js';

/**
 * hawkBit's standard repository setup (JpaSystemManagement.createStandardSoftwareDataSetup), created
 * for every tenant that has none yet: module types `os` (one per set) and `application` (any
 * number); set types `os` ("OS only", os mandatory), `app` ("App(s) only", application mandatory)
 * and `os_app` ("OS with app(s)", os mandatory, application optional), which becomes the tenant's
 * `default.ds.type`. Idempotent and safe when several instances start at once: the unique keys
 * decide, a lost race changes nothing. Tenants set up before `app` existed keep what they have.
 */
const INT_MAX = 2_147_483_647;
const CONFIG_ID = 1;

export async function bootstrapTenant(store: Store, tenant: Tenant, now: number): Promise<void> {
  if ((await store.lookup(tenant, SM_TYPE, 'key', KEYS.smOs)) !== undefined) return;
  const audit = created('system', now);
  const first = await store.nextIds(tenant, SM_TYPE, 2);
  const smType = (id: number, key: string, name: string, description: string, maxAssignments: number): SoftwareModuleTypeRecord =>
    ({ id, key, name, description, colour: null, maxAssignments, deleted: false, ...audit });
  const os = smType(first, KEYS.smOs, 'OS', 'Core firmware or operation system', 1);
  const app = smType(first + 1, KEYS.smApp, 'Application', 'Application Addons', INT_MAX);
  const ds = await store.nextIds(tenant, DS_TYPE, 3);
  const dsType = (
    id: number, key: string, name: string, description: string, mandatory: number[], optional: number[],
  ): DistributionSetTypeRecord => ({ id, key, name, description, colour: null, mandatory, optional, deleted: false, ...audit });
  const types = [
    dsType(ds, KEYS.dsOs, 'OS only', 'Default type with Firmware/OS only.', [os.id], []),
    dsType(ds + 1, KEYS.dsApp, 'App(s) only', 'Default type with app(s) only.', [app.id], []),
    dsType(ds + 2, KEYS.dsOsApp, 'OS with app(s)', 'Default type with Firmware/OS and optional app(s).', [os.id], [app.id]),
  ];
  const config = await store.get<TenantConfigRecord>(tenant, TENANT_CONFIG, CONFIG_ID);
  const withDefault: TenantConfigRecord = { id: CONFIG_ID, values: config?.value.values ?? {}, ...config?.value, defaultDsType: ds + 2 };
  const writes: Write[] = [
    ...[os, app].map((r) => ({ kind: SM_TYPE, id: r.id, expect: 0, after: r })),
    ...types.map((r) => ({ kind: DS_TYPE, id: r.id, expect: 0, after: r })),
    { kind: TENANT_CONFIG, id: CONFIG_ID, expect: config?.version ?? 0, before: config?.value, after: withDefault },
  ];
  await store.commit(tenant, { writes });
}
