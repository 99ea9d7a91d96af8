import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { AppError } from '../../domain/errors.js';
import { readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { ACCESS } from '../targets/access.js';
import { principalOf, textParam } from '../targets/request.js';
import { configEntryJson, maySee } from './config-json.js';

// the type is judged by the key's catalogue entry (CONFIG_VALUE_INVALID), only absence here
const valueBody = z.object({ value: z.custom<unknown>((v) => v !== undefined, { error: 'required' }) });
const bulkBody = z.record(z.string(), z.unknown());

/**
 * `/rest/v1/system/configs`: read all, read, write and reset one key, write several at once (all
 * or none). Values are validated by the key catalogue (src/domain/tenant-config.ts). Writes answer
 * 200 with the entries, as the spec's releases do. @see spec 4.7; reference §3.14, §10
 */
export function configRoutes(services: Services): Route[] {
  const cfg = () => services.tenantConfig;
  const keyOf = (req: Request): string => {
    const key = textParam(req, 'keyName');
    if (!maySee(principalOf(req), key)) throw new AppError('INSUFFICIENT_PERMISSION', `Reading or writing ${key} needs the permission READ_GATEWAY_SECURITY_TOKEN`);
    return key;
  };
  return [
    {
      method: 'GET', path: '/rest/v1/system/configs', auth: services.mgmtAuth(ACCESS.readConfig),
      handler: async (req) => {
        const principal = principalOf(req);
        const entries = await cfg().entries(principal.tenant);
        const json = Object.fromEntries(
          Object.entries(entries).filter(([k]) => maySee(principal, k)).map(([k, e]) => [k, configEntryJson(req, k, e)]),
        );
        return { status: 200, json };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/system/configs', auth: services.mgmtAuth(ACCESS.writeConfig),
      handler: async (req) => {
        const principal = principalOf(req);
        const values = readJson(req, bulkBody);
        const hidden = Object.keys(values).find((k) => !maySee(principal, k));
        if (hidden !== undefined) throw new AppError('INSUFFICIENT_PERMISSION', `Writing ${hidden} needs the permission READ_GATEWAY_SECURITY_TOKEN`);
        const written = await cfg().set(principal.tenant, values, principal.username, services.now());
        return { status: 200, json: Object.keys(values).map((k) => configEntryJson(req, k, written[k] as NonNullable<(typeof written)[string]>)) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/system/configs/:keyName', auth: services.mgmtAuth(ACCESS.readConfig),
      handler: async (req) => {
        const key = keyOf(req);
        return { status: 200, json: configEntryJson(req, key, await cfg().entry(principalOf(req).tenant, key)) };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/system/configs/:keyName', auth: services.mgmtAuth(ACCESS.writeConfig),
      handler: async (req) => {
        const principal = principalOf(req);
        const key = keyOf(req);
        await cfg().entry(principal.tenant, key); // unknown key: 400 before the body is judged
        const { value } = readJson(req, valueBody);
        const written = await cfg().set(principal.tenant, { [key]: value }, principal.username, services.now());
        return { status: 200, json: configEntryJson(req, key, written[key] as NonNullable<(typeof written)[string]>) };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/system/configs/:keyName', auth: services.mgmtAuth(ACCESS.writeConfig),
      handler: async (req) => {
        const key = keyOf(req);
        await cfg().reset(principalOf(req).tenant, key);
        return { status: 204 };
      },
    },
  ];
}
