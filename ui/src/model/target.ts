/** What the console reads of the Management API's target JSON (hawkBit's MgmtTarget). */
export interface Target {
  readonly controllerId: string;
  readonly name?: string;
  readonly description?: string;
  readonly group?: string;
  readonly updateStatus?: string;
  readonly lastControllerRequestAt?: number;
  readonly installedAt?: number;
  readonly ipAddress?: string;
  readonly address?: string;
  readonly pollStatus?: { readonly lastRequestAt?: number; readonly nextExpectedRequestAt?: number; readonly overdue?: boolean };
  readonly targetTypeName?: string;
  readonly createdAt?: number;
  readonly createdBy?: string;
  readonly lastModifiedAt?: number;
  readonly lastModifiedBy?: string;
}

export const UPDATE_STATUSES = ['in_sync', 'pending', 'error', 'registered', 'unknown'] as const;

/** The colour family of a target's update status or an action's status (pills, bars). */
export function statusKind(status: string | undefined): 'success' | 'error' | 'running' | 'scheduled' | 'other' {
  switch (status) {
    case 'in_sync': case 'finished': return 'success';
    case 'error': case 'canceled': return 'error';
    case 'pending': case 'running': case 'retrieved': case 'download': case 'downloaded': case 'canceling': return 'running';
    case 'registered': case 'scheduled': case 'wait_for_confirmation': return 'scheduled';
    default: return 'other';
  }
}

/** `in_sync` -> `In sync`. */
export function statusLabel(status: string | undefined): string {
  if (status === undefined || status === '') return 'unknown';
  const text = status.replace(/_/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}
