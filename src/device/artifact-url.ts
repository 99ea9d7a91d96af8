/**
 * Where a device downloads an artifact: the DDI artifact URL, which DMF's download messages carry too.
 * @see reference/hawkbit-api.md §1.3 (artifact link rels), §9 (DOWNLOAD_AND_INSTALL urls)
 */
import { segment } from '../http/links.js';

/** `{base}/{tenant}/controller/v1/{controllerId}`, with the tenant as the device writes it. */
export function deviceUrlOf(baseUrl: string, pathTenant: string, controllerId: string): string {
  return `${baseUrl}/${pathTenant}/controller/v1/${segment(controllerId)}`;
}

/** `{device URL}/softwaremodules/{moduleId}/artifacts/{filename}` */
export function artifactUrl(baseUrl: string, pathTenant: string, controllerId: string, moduleId: number, filename: string): string {
  return `${deviceUrlOf(baseUrl, pathTenant, controllerId)}/softwaremodules/${moduleId}/artifacts/${segment(filename)}`;
}
