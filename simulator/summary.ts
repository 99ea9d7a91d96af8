/** The end-of-run table the CLI prints. */
import { totalErrors, type FleetStats } from './stats.js';

export function summaryRows(s: FleetStats): [string, string][] {
  const secs = Math.max(0.001, s.elapsedMs / 1000);
  const errors = Object.entries(s.errorsByStatus).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  return [
    ['devices', String(s.devices)],
    ['duration', `${secs.toFixed(1)} s`],
    ['requests', `${s.requests} (${(s.requests / secs).toFixed(1)}/s)`],
    ['polls', `${s.polls} (304: ${s.notModified}, 429: ${s.throttled})`],
    ['configData sent', String(s.configDataSent)],
    ['confirmed / denied', `${s.confirmations} / ${s.denials}`],
    ['deployments started', String(s.deploymentsStarted)],
    ['deployments succeeded', String(s.deploymentsSucceeded)],
    ['deployments failed', `${s.deploymentsFailed} (verify failures: ${s.verifyFailures})`],
    ['cancels accepted', String(s.cancelsAccepted)],
    ['artifacts downloaded', String(s.artifactsDownloaded)],
    ['bytes downloaded', String(s.bytesDownloaded)],
    ['errors', `${totalErrors(s)} (${errors})`],
  ];
}

export function formatSummary(s: FleetStats): string {
  const rows = summaryRows(s);
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
