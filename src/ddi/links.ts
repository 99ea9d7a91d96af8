/**
 * Absolute DDI links, built from the base URL the client used (`req.baseUrl`, which honours
 * X-Forwarded-* from trusted proxies only) and the tenant as the client wrote it.
 * @see reference/hawkbit-api.md §1.3 (root links, artifact link rels)
 */
import { artifactUrl, deviceUrlOf } from '../device/artifact-url.js';
import type { Request } from '../http/types.js';
import type { Device } from './device.js';

/** `{base}/{tenant}/controller/v1/{controllerId}` */
export function deviceUrl(req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId'>): string {
  return deviceUrlOf(req.baseUrl, d.pathTenant, d.controllerId);
}

export interface Href {
  readonly href: string;
}

/**
 * `download-http` and `md5sum-http` always, plus `download` and `md5sum` when the request came over
 * HTTPS. All use the scheme, host and port the client used: the server answers on that origin only
 * (spec 5, note 3: links follow the scheme the client used), so an `http:` variant of an HTTPS
 * origin would point nowhere.
 */
export function artifactLinks(req: Pick<Request, 'baseUrl'>, d: Pick<Device, 'pathTenant' | 'controllerId'>, moduleId: number, filename: string): Record<string, Href> {
  const download = artifactUrl(req.baseUrl, d.pathTenant, d.controllerId, moduleId, filename);
  const md5sum = `${download}.MD5SUM`;
  const links: Record<string, Href> = {};
  if (req.baseUrl.startsWith('https:')) {
    links['download'] = { href: download };
    links['md5sum'] = { href: md5sum };
  }
  links['download-http'] = { href: download };
  links['md5sum-http'] = { href: md5sum };
  return links;
}
