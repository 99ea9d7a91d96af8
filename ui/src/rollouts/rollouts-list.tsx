import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { DataTable, type Column } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FiqlInput } from '../components/fiql-input.js';
import { formatTime } from '../components/format.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { ProgressBar } from '../components/progress-bar.js';
import { useLoad } from '../hooks/use-load.js';
import { href, navigate } from '../router.js';
import { BUSY_STATUSES, type Rollout } from './model.js';
import { progressText, segmentsOf } from './segments.js';
import { StatusBadge } from './status-badge.js';

const LIMIT = 20;
/** While a listed rollout runs or the server works on one, the page is read again this often. */
const REFRESH_MS = 5000;

const COLUMNS: readonly Column<Rollout>[] = [
  { key: 'name', label: 'Name', sortField: 'name', render: (r) => <a href={href(`/rollouts/${r.id}`)}>{r.name}</a> },
  { key: 'status', label: 'Status', sortField: 'status', render: (r) => <StatusBadge status={r.status} /> },
  {
    key: 'progress', label: 'Progress', class: 'col-progress',
    render: (r) => (
      <div>
        <ProgressBar segments={segmentsOf(r.totalTargetsPerStatus)} total={r.totalTargets} label={`Progress of ${r.name}`} />
        <span class="muted small">{progressText(r.totalTargetsPerStatus, r.totalTargets)}</span>
      </div>
    ),
  },
  { key: 'targets', label: 'Targets', class: 'num hide-phone', render: (r) => r.totalTargets },
  { key: 'groups', label: 'Groups', class: 'num hide-phone', render: (r) => r.totalGroups ?? '—' },
  { key: 'type', label: 'Type', class: 'hide-phone', render: (r) => r.type },
  { key: 'created', label: 'Created', sortField: 'createdAt', class: 'hide-phone', render: (r) => formatTime(r.createdAt) },
];

/** Rollouts: server paging, sorting and FIQL search; a stacked progress bar per row. */
export function RolloutsList() {
  const [q, setQ] = useState('');
  const [sort, setSort] = useState('createdAt:DESC');
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => api.page<Rollout>('/rest/v1/rollouts?representation=full', { offset, limit: LIMIT, sort, q: q === '' ? undefined : q }),
    [q, sort, offset],
  );
  const rows = list.data?.content ?? [];
  const active = rows.some((r) => r.status === 'running' || BUSY_STATUSES.includes(r.status));
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(list.reload, REFRESH_MS);
    return () => { clearInterval(timer); };
  }, [active, list.reload]);

  return (
    <Page title="Rollouts" actions={<Button permission="CREATE_ROLLOUT" variant="primary" onClick={() => { navigate('/rollouts/new'); }}>New rollout</Button>}>
      <FiqlInput value={q} label="Search rollouts (FIQL)" placeholder="name==firmware-* or status==running" countPath="/rest/v1/rollouts" noun="rollouts"
        onChange={(next, valid) => { if (valid) { setQ(next); setOffset(0); } }} />
      <ErrorBanner error={list.error} onRetry={list.reload} />
      <DataTable caption="Rollouts" columns={COLUMNS} rows={rows} rowKey={(r) => r.id} sort={sort}
        onSort={(s) => { setSort(s); setOffset(0); }}
        empty={list.loading ? 'Loading…' : q === '' ? 'No rollouts yet.' : 'No rollout matches the search.'} />
      <Pager total={list.data?.total ?? 0} offset={offset} limit={LIMIT} onChange={setOffset} />
    </Page>
  );
}
