import type { ComponentChildren } from 'preact';
import { api } from '../../api.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FiqlInput } from '../../components/fiql-input.js';
import { Pager } from '../../components/pager.js';
import { useListQuery } from '../../hooks/use-list-query.js';
import { useLoad } from '../../hooks/use-load.js';

interface Props<T> {
  readonly path: string;
  readonly columns: readonly Column<T>[];
  readonly noun: string;
  readonly placeholder: string;
  /** Buttons above the list (create). */
  readonly actions?: ComponentChildren;
  /** Bumped by the parent after a change, to load the page again. */
  readonly version?: number;
}

/** A server-paged repository list with FIQL search and header sorting (state in the hash). */
export function ListTab<T extends { readonly id: number }>({ path, columns, noun, placeholder, actions, version = 0 }: Props<T>) {
  const list = useListQuery({ sort: 'name:ASC' });
  const page = useLoad(() => api.page<T>(path, list), [path, list.q, list.sort, list.offset, version]);
  return (
    <>
      <div class="toolbar">
        <FiqlInput label="Search (FIQL)" value={list.q} onChange={(q) => { list.set({ q }); }} countPath={path} noun={noun}
          placeholder={placeholder} />
        {actions}
      </div>
      <ErrorBanner error={page.error} onRetry={page.reload} />
      <DataTable columns={columns} rows={page.data?.content ?? []} rowKey={(x) => x.id} sort={list.sort}
        onSort={(sort) => { list.set({ sort }); }}
        caption={noun} empty={page.loading ? 'Loading…' : `No ${noun} match.`} />
      <Pager total={page.data?.total ?? 0} offset={list.offset} limit={list.limit} onChange={(offset) => { list.set({ offset }); }} />
    </>
  );
}
