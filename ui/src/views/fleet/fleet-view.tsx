import { api } from '../../api.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatAgo, formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { ProgressBar } from '../../components/progress-bar.js';
import { Spinner } from '../../components/spinner.js';
import { StatusPill } from '../../components/status-pill.js';
import { useLoad } from '../../hooks/use-load.js';
import { useRefresh } from '../../hooks/use-refresh.js';
import { statusKind, statusLabel, UPDATE_STATUSES, type Target } from '../../model/target.js';
import { href, type RouteProps } from '../../router.js';
import { loadFleetStats } from './fleet-stats.js';

function Stat({ label, value, kind, q, hint }: { label: string; value: number | undefined; kind: string; q?: string; hint?: string }) {
  const link = q === undefined ? href('/targets') : href(`/targets?q=${encodeURIComponent(q)}`);
  return (
    <a class={`stat stat-${kind}`} href={link} title={hint}>
      <div class="value">{value === undefined ? '–' : value.toLocaleString()}</div>
      <div class="label">{label}</div>
    </a>
  );
}

const ATTENTION: Column<Target>[] = [
  { key: 'controllerId', label: 'Controller ID', render: (t) => <a href={href(`/targets/${encodeURIComponent(t.controllerId)}`)}>{t.controllerId}</a> },
  { key: 'status', label: 'Status', render: (t) => <StatusPill status={t.updateStatus} /> },
  { key: 'seen', label: 'Last poll', render: (t) => <span title={formatTime(t.lastControllerRequestAt)}>{formatAgo(t.lastControllerRequestAt)}</span> },
];

/** The fleet at a glance: devices per update status, online and overdue, polls in the last minute; live. */
export function FleetView(_props: RouteProps) {
  const stats = useLoad(() => loadFleetStats(), []);
  const failing = useLoad(() => api.page<Target>('/rest/v1/targets', { q: 'updateStatus==error', limit: 5, sort: 'lastModifiedAt:DESC' }), []);
  useRefresh(() => { stats.reload(); failing.reload(); }, { eventsUrl: '/rest/v1/events?kinds=target,action' });
  const s = stats.data;
  return (
    <Page title="Fleet" subtitle={s === undefined ? 'Loading…' : <>Updated {formatTime(s.at)} · refreshes live</>}
      actions={stats.loading && s !== undefined ? <Spinner label="Refreshing" /> : undefined}>
      <ErrorBanner error={stats.error} onRetry={stats.reload} />
      <div class="stats" aria-label="Devices by update status">
        <Stat label="Devices" value={s?.total} kind="scheduled" />
        {UPDATE_STATUSES.map((status) => (
          <Stat key={status} label={statusLabel(status)} value={s?.byStatus[status]} kind={statusKind(status)} q={`updateStatus==${status}`} />
        ))}
      </div>
      <div class="card">
        <h2>Update status</h2>
        <ProgressBar label="Devices by update status" legend total={s?.total}
          segments={UPDATE_STATUSES.map((status) => ({
            value: s?.byStatus[status] ?? 0, label: statusLabel(status), kind: statusKind(status),
          }))} />
      </div>
      <div class="stats section" aria-label="Device activity">
        <Stat label="Online (polled within the overdue bound)" value={s?.online} kind="success"
          q={'lastControllerRequestAt=ge=${OVERDUE_TS}'} />
        <Stat label="Overdue (no poll within the bound)" value={s?.overdue} kind="other" q={'lastControllerRequestAt=lt=${OVERDUE_TS}'} />
        <Stat label="Polls per minute (devices that polled in the last minute)" value={s?.lastMinute} kind="running"
          hint="Counts each device once: the devices whose last poll is less than a minute old" />
      </div>
      <div class="section">
        <h2>Recent errors</h2>
        <ErrorBanner error={failing.error} />
        <DataTable columns={ATTENTION} rows={failing.data?.content ?? []} rowKey={(t) => t.controllerId} caption="Devices in error"
          empty="No device is in error." />
      </div>
    </Page>
  );
}
