import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import type { Request, Route } from '../../http/types.js';
import type { TenantConfigService } from '../../tenancy/tenant-config-service.js';
import { CONFIG } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf, pathText } from '../kit/request.js';
import { managementApi } from '../../domain/tenant-config.js';
import { configEntryJson, maySee } from './config-json.js';
import { configEntryResponse } from '../kit/responses.js';

// the type is judged by the key's catalogue entry (CONFIG_VALUE_INVALID), only absence here
const valueBody = z.object({ value: z.custom<unknown>((v) => v !== undefined, { error: 'required' }) });
const bulkBody = z.record(z.string(), z.unknown());

/**
 * `/rest/v1/system/configs`: read all, read, write and reset one key, write several at once (all
 * or none). Values are validated by the key catalogue (src/domain/tenant-config.ts). Writes answer
 * 200 with the written entries as the spec (4.7) says: one entry for one key, an array for several;
 * with `compat.managementApi` "1.x" as in force after the write, 204 without a body, as hawkBit 1.x's
 * MgmtTenantManagementRestApi (`@ResponseStatus(NO_CONTENT)` on both PUTs).
 * @see spec 4.7; reference §3.14, §10
 */
export interface ConfigDeps extends Pick<KitDeps, 'mgmtAuth' | 'now'> {
  readonly tenantConfig: Pick<TenantConfigService, 'entries' | 'entry' | 'set' | 'reset' | 'view'>;
}

const WRITE_1X = 'With `compat.managementApi` "1.x" (config.yaml, or this key of the tenant configuration) in force after the write, 204 without a body (hawkBit 1.x).';

export function configRoutes(deps: ConfigDeps): Route[] {
  const cfg = () => deps.tenantConfig;
  const speaks1x = async (tenant: string): Promise<boolean> => managementApi(await cfg().view(tenant)) === '1.x';
  const keyOf = (req: Request): string => {
    const key = pathText(req, 'keyName');
    if (!maySee(callerOf(req), key)) throw new AppError('INSUFFICIENT_PERMISSION', `Reading or writing ${key} needs the permission READ_GATEWAY_SECURITY_TOKEN`);
    return key;
  };
  return [
    {
      method: 'GET', path: '/rest/v1/system/configs', auth: deps.mgmtAuth(CONFIG.read),
      doc: { summary: 'Read the tenant configuration', response: z.record(z.string(), configEntryResponse) },
      handler: async (req) => {
        const principal = callerOf(req);
        const entries = await cfg().entries(principal.tenant);
        const json = Object.fromEntries(
          Object.entries(entries).filter(([k]) => maySee(principal, k)).map(([k, e]) => [k, configEntryJson(req, k, e)]),
        );
        return { status: 200, json };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/system/configs', auth: deps.mgmtAuth(CONFIG.write),
      doc: { summary: 'Write several configuration keys (all or none)', body: bulkBody, response: z.array(configEntryResponse), description: WRITE_1X },
      handler: async (req) => {
        const principal = callerOf(req);
        const values = readBody(req, bulkBody);
        const hidden = Object.keys(values).find((k) => !maySee(principal, k));
        if (hidden !== undefined) throw new AppError('INSUFFICIENT_PERMISSION', `Writing ${hidden} needs the permission READ_GATEWAY_SECURITY_TOKEN`);
        await cfg().set(principal.tenant, values, principal.username, deps.now());
        if (await speaks1x(principal.tenant)) return { status: 204 };
        const written = await Promise.all(
          Object.keys(values).map(async (k) => configEntryJson(req, k, await cfg().entry(principal.tenant, k))),
        );
        return { status: 200, json: written };
      },
    },
    {
      method: 'GET', path: '/rest/v1/system/configs/:keyName', auth: deps.mgmtAuth(CONFIG.read), doc: { response: configEntryResponse },
      handler: async (req) => {
        const key = keyOf(req);
        return { status: 200, json: configEntryJson(req, key, await cfg().entry(callerOf(req).tenant, key)) };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/system/configs/:keyName', auth: deps.mgmtAuth(CONFIG.write),
      doc: { body: valueBody, response: configEntryResponse, description: WRITE_1X },
      handler: async (req) => {
        const principal = callerOf(req);
        const key = keyOf(req);
        await cfg().entry(principal.tenant, key); // unknown key: 400 before the body is judged
        const { value } = readBody(req, valueBody);
        await cfg().set(principal.tenant, { [key]: value }, principal.username, deps.now());
        if (await speaks1x(principal.tenant)) return { status: 204 };
        return { status: 200, json: configEntryJson(req, key, await cfg().entry(principal.tenant, key)) };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/system/configs/:keyName', auth: deps.mgmtAuth(CONFIG.write), doc: { response: { status: 204 } },
      handler: async (req) => {
        const key = keyOf(req);
        await cfg().reset(callerOf(req).tenant, key);
        return { status: 204 };
      },
    },
  ];
}
