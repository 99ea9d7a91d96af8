import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FiqlInput } from '../../components/fiql-input.js';
import { formatAgo, formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { Pager } from '../../components/pager.js';
import { StatusPill } from '../../components/status-pill.js';
import { useListQuery } from '../../hooks/use-list-query.js';
import { useLoad } from '../../hooks/use-load.js';
import type { Target } from '../../model/target.js';
import { href, type RouteProps } from '../../router.js';
import { useSession } from '../../session.js';
import { matchingIds } from './all-matching.js';
import { AssignDialog } from './assign-dialog.js';
import { CreateTargetDialog } from './create-target-dialog.js';
import { TagDialog } from './tag-dialog.js';

const COLUMNS: Column<Target>[] = [
  { key: 'controllerId', label: 'Controller ID', sortField: 'controllerId',
    render: (t) => <a class="mono" href={href(`/targets/${encodeURIComponent(t.controllerId)}`)}>{t.controllerId}</a> },
  { key: 'name', label: 'Name', sortField: 'name', render: (t) => t.name, class: 'hide-phone' },
  { key: 'status', label: 'Update status', sortField: 'updateStatus', render: (t) => <StatusPill status={t.updateStatus} /> },
  { key: 'poll', label: 'Last poll', sortField: 'lastControllerRequestAt',
    render: (t) => <span title={formatTime(t.lastControllerRequestAt)}>{formatAgo(t.lastControllerRequestAt)}{t.pollStatus?.overdue === true ? ' · overdue' : ''}</span> },
  { key: 'ip', label: 'Address', sortField: 'ipAddress', render: (t) => t.ipAddress ?? '—', class: 'hide-phone' },
];

type Open = 'create' | 'assign' | 'tag' | undefined;

/** Targets: FIQL search, sorting, server paging, bulk assignment and tagging, create. */
export function TargetsView(_props: RouteProps) {
  const session = useSession();
  const list = useListQuery({ sort: 'controllerId:ASC' });
  const page = useLoad(() => api.page<Target>('/rest/v1/targets', list), [list.q, list.sort, list.offset, list.limit]);
  const [selected, setSelected] = useState<Set<string | number>>(new Set());
  const [open, setOpen] = useState<Open>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  /** While every matching id is read: how far it got. */
  const [collecting, setCollecting] = useState<string | undefined>(undefined);
  const [collectError, setCollectError] = useState<unknown>(undefined);
  const selectAll = async (): Promise<void> => {
    setCollectError(undefined);
    try {
      const all = await matchingIds(list.q, (done, total) => { setCollecting(`Selecting ${done.toLocaleString()} of ${total.toLocaleString()}…`); });
      setSelected(new Set(all));
    } catch (err) {
      setCollectError(err);
    } finally {
      setCollecting(undefined);
    }
  };
  const total = page.data?.total ?? 0;
  // the selection survives paging, not a new search: what is selected is always what the search found
  useEffect(() => { setSelected(new Set()); }, [list.q]);
  const canAssign = session.can('UPDATE_TARGET') && session.can(['READ_REPOSITORY', 'READ_DISTRIBUTION_SET']);
  const canTag = session.can('UPDATE_TARGET');
  const ids = [...selected].map(String);
  const done = (summary: string): void => {
    setOpen(undefined);
    setNotice(summary);
    setSelected(new Set());
    page.reload();
  };
  return (
    <Page title="Targets" subtitle={page.data === undefined ? undefined : `${page.data.total.toLocaleString()} matching`}
      actions={<Button permission="CREATE_TARGET" variant="primary" onClick={() => { setOpen('create'); }}>Create target</Button>}>
      <div class="toolbar">
        <FiqlInput label="Search (FIQL)" value={list.q} onChange={(q) => { list.set({ q }); }}
          placeholder="controllerId==dev-* or updateStatus==error" />
      </div>
      {notice !== undefined && <div class="banner banner-info" role="status">{notice}
        <button type="button" class="btn btn-plain" onClick={() => { setNotice(undefined); }}>Dismiss</button></div>}
      <ErrorBanner error={page.error ?? collectError} onRetry={page.reload} />
      {selected.size > 0 && (canAssign || canTag) && (
        <div class="bulkbar" role="region" aria-label="Selected targets">
          <strong>{selected.size.toLocaleString()} selected</strong>
          {selected.size < total && (
            <Button busy={collecting !== undefined} onClick={() => { void selectAll(); }}>
              Select all {total.toLocaleString()} matching
            </Button>
          )}
          {collecting !== undefined && <span class="muted" role="status">{collecting}</span>}
          {canAssign && <Button variant="primary" onClick={() => { setOpen('assign'); }}>Assign distribution set</Button>}
          {canTag && <Button onClick={() => { setOpen('tag'); }}>Tag</Button>}
          <Button onClick={() => { setSelected(new Set()); }}>Clear selection</Button>
        </div>
      )}
      <DataTable columns={COLUMNS} rows={page.data?.content ?? []} rowKey={(t) => t.controllerId} sort={list.sort}
        onSort={(sort) => { list.set({ sort }); }} caption="Targets"
        selected={canAssign || canTag ? selected : undefined} onSelect={canAssign || canTag ? setSelected : undefined}
        empty={page.loading ? 'Loading…' : 'No target matches.'} />
      <Pager total={page.data?.total ?? 0} offset={list.offset} limit={list.limit} onChange={(offset) => { list.set({ offset }); }} />
      {open === 'create' && <CreateTargetDialog open onClose={() => { setOpen(undefined); }} />}
      {open === 'assign' && <AssignDialog open controllerIds={ids} onClose={() => { setOpen(undefined); }} onDone={done} />}
      {open === 'tag' && <TagDialog open controllerIds={ids} onClose={() => { setOpen(undefined); }} onDone={done} />}
    </Page>
  );
}
