/**
 * `--tenant-per-run` (scenario `tenantPerRun`): the run creates a tenant of its own, `SIM-<run id>`, with
 * one Management user `sim` (all permissions, a random password) through the server's system API
 * (`POST /rest/v1/system/admin/tenants`, the scenario's admin holding SYSTEM_ADMIN), runs the scenario
 * there, and deletes it at the end unless `keepTenant` is set. Nothing of an earlier run is in it.
 */
import { randomBytes } from 'node:crypto';
import { AdminAuthError, Mgmt, MgmtError } from './mgmt.js';
import type { Scenario } from './scenario.js';

const TENANTS = '/rest/v1/system/admin/tenants';

export interface RunTenant {
  readonly name: string;
  /** `TENANT\sim:password`: the run's Management credentials in its tenant. */
  readonly credentials: string;
  /** Deletes the tenant and all its data. */
  remove(): Promise<void>;
}

export async function createRunTenant(s: Scenario, runId: string, log: (line: string) => void): Promise<RunTenant> {
  if (s.admin === undefined) throw new AdminAuthError('tenantPerRun needs admin credentials (admin: user:password or --admin)');
  const admin = new Mgmt(s.server, s.admin, log);
  await admin.check(s.connectAttempts);
  const name = `SIM-${runId.toUpperCase()}`;
  const password = randomBytes(18).toString('base64url');
  const r = await admin.call('POST', TENANTS, { name, users: [{ username: 'sim', password, permissions: ['ALL'] }] });
  if (r.status === 401 || r.status === 403) {
    throw new AdminAuthError(`tenantPerRun: ${admin.user} may not create tenants on ${s.server} (${r.status}): it needs SYSTEM_ADMIN in a config.yaml tenant`);
  }
  if (r.status === 404 || r.status === 405) {
    throw new AdminAuthError(`tenantPerRun: ${s.server} does not create tenants at runtime (POST ${TENANTS} answered ${r.status})`);
  }
  if (r.status !== 201) throw new MgmtError(`POST ${TENANTS} answered ${r.status}: ${JSON.stringify(r.json)?.slice(0, 400)}`);
  return {
    name,
    credentials: `${name}\\sim:${password}`,
    remove: async () => {
      await admin.expect('DELETE', `${TENANTS}/${name}`, [200, 204]);
    },
  };
}
