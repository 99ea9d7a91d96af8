import { keySpec, isConfigKey } from '../../domain/tenant-config.js';
import { link, segment } from '../../http/links.js';
import { keepNulls } from '../../http/serialize.js';
import type { MgmtPrincipal, Request } from '../../http/types.js';
import type { ConfigEntry } from '../../tenancy/tenant-config-service.js';

/** Tenant configuration entries as JSON. @see spec 2.11, 4.7; reference §3.14 */

export const configPath = (key: string): string => `/rest/v1/system/configs/${segment(key)}`;

/** `{value, global, lastModifiedAt, lastModifiedBy, createdAt, createdBy, _links.self}` (audit fields when a tenant value is stored). */
export function configEntryJson(req: Request, key: string, entry: ConfigEntry): object {
  // `value` is written even when null (hawkBit's model marks it @JsonInclude)
  return keepNulls({
    value: entry.value,
    global: entry.global,
    ...(entry.audit === undefined
      ? {}
      : {
        lastModifiedAt: entry.audit.lastModifiedAt, lastModifiedBy: entry.audit.lastModifiedBy,
        createdAt: entry.audit.createdAt, createdBy: entry.audit.createdBy,
      }),
    _links: { self: link(req, configPath(key)) },
  });
}

/** Secret keys (the gateway token) are shown only to callers holding READ_GATEWAY_SECURITY_TOKEN. */
export function maySee(principal: MgmtPrincipal, key: string): boolean {
  if (!isConfigKey(key) || keySpec(key).secret !== true) return true;
  return principal.permissions.has('READ_GATEWAY_SECURITY_TOKEN') || principal.permissions.has('ALL');
}
