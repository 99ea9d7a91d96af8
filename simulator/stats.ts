/**
 * Counters a fleet collects while its devices run. One mutable object shared by every device of a
 * fleet: devices run on one event loop, so plain increments are safe.
 */
export interface FleetStats {
  devices: number;
  polls: number;
  notModified: number;
  configDataSent: number;
  confirmations: number;
  denials: number;
  deploymentsStarted: number;
  deploymentsSucceeded: number;
  deploymentsFailed: number;
  /** Artifacts whose size or sha1 did not match the deploymentBase (reported as failure). */
  verifyFailures: number;
  cancelsAccepted: number;
  artifactsDownloaded: number;
  bytesDownloaded: number;
  requests: number;
  /** Polls answered 429 (the server's per-device pacing); the device waits Retry-After, not an error. */
  throttled: number;
  /** Unexpected answers by status code ("network" for transport errors). */
  errorsByStatus: Record<string, number>;
  startedAt: number;
  elapsedMs: number;
}

export function emptyStats(devices: number, now = Date.now()): FleetStats {
  return {
    devices, polls: 0, notModified: 0, configDataSent: 0, confirmations: 0, denials: 0,
    deploymentsStarted: 0, deploymentsSucceeded: 0, deploymentsFailed: 0, verifyFailures: 0, cancelsAccepted: 0,
    artifactsDownloaded: 0, bytesDownloaded: 0, requests: 0, throttled: 0, errorsByStatus: {}, startedAt: now, elapsedMs: 0,
  };
}

export function totalErrors(stats: FleetStats): number {
  return Object.values(stats.errorsByStatus).reduce((a, b) => a + b, 0);
}

export function countError(stats: FleetStats, status: number | 'network'): void {
  const key = String(status);
  stats.errorsByStatus[key] = (stats.errorsByStatus[key] ?? 0) + 1;
}
