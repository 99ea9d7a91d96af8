import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { DataTable, type Column } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../hooks/use-load.js';

interface GroupTarget {
  readonly controllerId: string;
  readonly name: string;
  readonly updateStatus?: string;
  readonly lastControllerRequestAt?: number;
}

const LIMIT = 10;

const COLUMNS: readonly Column<GroupTarget>[] = [
  { key: 'controllerId', label: 'Controller id', sortField: 'controllerId', render: (t) => <span class="mono">{t.controllerId}</span> },
  { key: 'name', label: 'Name', sortField: 'name', render: (t) => t.name },
  { key: 'updateStatus', label: 'Update status', sortField: 'updateStatus', render: (t) => t.updateStatus ?? '—' },
  { key: 'lastPoll', label: 'Last poll', sortField: 'lastControllerRequestAt', render: (t) => formatTime(t.lastControllerRequestAt) },
];

/** One group's targets, server-paged and sorted; read again when `version` changes (the group's counts moved). */
interface Props {
  readonly rolloutId: number;
  readonly groupId: number;
  /** Changes when the group's counts move: the page is read again. */
  readonly version: string;
}

export function GroupTargets({ rolloutId, groupId, version }: Props) {
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState('controllerId:ASC');
  const list = useLoad(
    () => api.page<GroupTarget>(`/rest/v1/rollouts/${rolloutId}/deploygroups/${groupId}/targets`, { offset, limit: LIMIT, sort }),
    [rolloutId, groupId, offset, sort, version],
  );
  return (
    <div class="group-targets">
      <ErrorBanner error={list.error} onRetry={list.reload} />
      <DataTable caption="Targets of the group" columns={COLUMNS} rows={list.data?.content ?? []} rowKey={(t) => t.controllerId}
        sort={sort} onSort={(s) => { setSort(s); setOffset(0); }} empty={list.loading ? 'Loading…' : 'No targets in this group.'} />
      <Pager total={list.data?.total ?? 0} offset={offset} limit={LIMIT} onChange={setOffset} />
    </div>
  );
}
