import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { DataTable, type Column } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FiqlInput } from '../components/fiql-input.js';
import { formatTime } from '../components/format.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../hooks/use-load.js';
import { nameVersion, type DistributionSet } from '../model/repository.js';
import { useSession } from '../session.js';
import { AutoAssignDialog } from './auto-assign-dialog.js';
import { DeleteDialog } from './delete-dialog.js';
import { FilterEditor } from './filter-editor.js';
import { FILTERS, type TargetFilter } from './model.js';

const LIMIT = 20;

type Open = { readonly kind: 'edit' | 'auto' | 'delete'; readonly filter: TargetFilter } | { readonly kind: 'new' } | undefined;

/** One page of filters and the sets their auto-assignments name (one request for the page). */
async function loadPage(offset: number, sort: string, q: string) {
  const page = await api.page<TargetFilter>(FILTERS, { offset, limit: LIMIT, sort, q: q === '' ? undefined : q });
  const ids = [...new Set(page.content.map((f) => f.autoAssignDistributionSet).filter((id): id is number => id !== null))];
  const sets = new Map<number, DistributionSet>();
  if (ids.length > 0) {
    const found = await api.page<DistributionSet>('/rest/v1/distributionsets', { q: ids.map((id) => `id==${id}`).join(','), limit: ids.length });
    for (const s of found.content) sets.set(s.id, s);
  }
  return { ...page, sets };
}

/** Target filters: server-paged list, create/edit with the live count, auto-assignment, delete. */
export function FiltersList() {
  const session = useSession();
  const [q, setQ] = useState('');
  const [sort, setSort] = useState('name:ASC');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<Open>();
  /** Bumped after each change: the search box counts the filters again. */
  const [changes, setChanges] = useState(0);
  const list = useLoad(() => loadPage(offset, sort, q), [offset, sort, q]);
  // POST .../autoAssignDS needs UPDATE_TARGET and READ_REPOSITORY (src/mgmt/kit/access.ts ASSIGN)
  const mayAssign = session.can('UPDATE_TARGET') && session.can(['READ_REPOSITORY', 'READ_DISTRIBUTION_SET']);
  const done = (): void => { setOpen(undefined); setChanges((n) => n + 1); list.reload(); };

  const columns: Column<TargetFilter>[] = [
    { key: 'name', label: 'Name', sortField: 'name', render: (f) => f.name },
    { key: 'query', label: 'Query', render: (f) => <code>{f.query}</code> },
    {
      key: 'auto', label: 'Auto-assignment',
      render: (f) => {
        if (f.autoAssignDistributionSet === null) return <span class="muted">—</span>;
        const set = list.data?.sets.get(f.autoAssignDistributionSet);
        return <span>{set === undefined ? `#${f.autoAssignDistributionSet}` : nameVersion(set)} <span class="muted">({f.autoAssignActionType})</span></span>;
      },
    },
    { key: 'modified', label: 'Modified', sortField: 'lastModifiedAt', class: 'hide-phone', render: (f) => formatTime(f.lastModifiedAt) },
    {
      key: 'ops', label: 'Actions',
      render: (f) => (
        <div class="actions">
          <Button permission="UPDATE_TARGET" aria-label={`Edit ${f.name}`} onClick={() => { setOpen({ kind: 'edit', filter: f }); }}>Edit</Button>
          {mayAssign && <Button aria-label={`Auto-assignment of ${f.name}`} onClick={() => { setOpen({ kind: 'auto', filter: f }); }}>Auto-assign</Button>}
          <Button permission="DELETE_TARGET" variant="danger" aria-label={`Delete ${f.name}`} onClick={() => { setOpen({ kind: 'delete', filter: f }); }}>Delete</Button>
        </div>
      ),
    },
  ];

  return (
    <Page title="Target filters" actions={<Button permission="CREATE_TARGET" variant="primary" onClick={() => { setOpen({ kind: 'new' }); }}>New filter</Button>}>
      <FiqlInput key={changes} value={q} label="Search filters (FIQL)" placeholder="name==line-*" countPath={FILTERS} noun="filters"
        onChange={(next, valid) => { if (valid) { setQ(next); setOffset(0); } }} />
      <ErrorBanner error={list.error} onRetry={list.reload} />
      <DataTable caption="Target filters" columns={columns} rows={list.data?.content ?? []} rowKey={(f) => f.id} sort={sort}
        onSort={(s) => { setSort(s); setOffset(0); }} empty={list.loading ? 'Loading…' : 'No target filters.'} />
      <Pager total={list.data?.total ?? 0} offset={offset} limit={LIMIT} onChange={setOffset} />
      {open?.kind === 'new' && <FilterEditor onClose={() => { setOpen(undefined); }} onSaved={done} />}
      {open?.kind === 'edit' && <FilterEditor filter={open.filter} onClose={() => { setOpen(undefined); }} onSaved={done} />}
      {open?.kind === 'auto' && <AutoAssignDialog filter={open.filter} onClose={() => { setOpen(undefined); }} onSaved={done} />}
      {open?.kind === 'delete' && <DeleteDialog filter={open.filter} onClose={() => { setOpen(undefined); }} onDeleted={done} />}
    </Page>
  );
}
