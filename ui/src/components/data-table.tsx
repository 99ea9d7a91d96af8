import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** The column's id; also the sort field unless `sortField` says otherwise. */
  readonly key: string;
  readonly label: string;
  readonly render: (row: T) => ComponentChildren;
  /** Sortable by the server under this field name (`name`, `lastModifiedAt`); unset: not sortable. */
  readonly sortField?: string;
  readonly class?: string;
}

interface Props<T> {
  readonly columns: readonly Column<T>[];
  readonly rows: readonly T[];
  /** hawkBit's sort parameter: `name:ASC`. */
  readonly sort?: string;
  readonly onSort?: (sort: string) => void;
  readonly rowKey: (row: T) => string | number;
  /** Multi-select: a checkbox per row and one for the page. */
  readonly selected?: ReadonlySet<string | number>;
  readonly onSelect?: (selected: Set<string | number>) => void;
  readonly empty?: ComponentChildren;
  readonly caption?: string;
}

function parseSort(sort: string | undefined): { field: string; dir: 'ASC' | 'DESC' } | undefined {
  if (sort === undefined || sort === '') return undefined;
  const [field = '', dir = 'ASC'] = sort.split(':');
  return { field, dir: dir.toUpperCase() === 'DESC' ? 'DESC' : 'ASC' };
}

/** A table whose headers sort on the server (click again to reverse) and whose rows may be selected. */
export function DataTable<T>({ columns, rows, sort, onSort, rowKey, selected, onSelect, empty = 'Nothing here yet.', caption }: Props<T>) {
  const current = parseSort(sort);
  const keys = rows.map(rowKey);
  const allOnPage = keys.length > 0 && selected !== undefined && keys.every((k) => selected.has(k));
  const toggle = (key: string | number): void => {
    if (selected === undefined || onSelect === undefined) return;
    const next = new Set(selected);
    if (next.has(key)) next.delete(key); else next.add(key);
    onSelect(next);
  };
  const toggleAll = (): void => {
    if (selected === undefined || onSelect === undefined) return;
    const next = new Set(selected);
    for (const k of keys) { if (allOnPage) next.delete(k); else next.add(k); }
    onSelect(next);
  };
  return (
    <div class="table-wrap">
      <table class="table">
        {caption !== undefined && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {onSelect !== undefined && (
              <th class="col-check"><input type="checkbox" aria-label="Select all on this page" checked={allOnPage} onChange={toggleAll} /></th>
            )}
            {columns.map((c) => {
              const active = current !== undefined && c.sortField !== undefined && current.field === c.sortField;
              const ariaSort = active ? (current.dir === 'ASC' ? 'ascending' : 'descending') : undefined;
              return (
                <th key={c.key} class={c.class} aria-sort={ariaSort}>
                  {c.sortField !== undefined && onSort !== undefined ? (
                    <button type="button" class="th-sort" onClick={() => {
                      onSort(`${c.sortField ?? c.key}:${active && current.dir === 'ASC' ? 'DESC' : 'ASC'}`);
                    }}>
                      {c.label}<span aria-hidden="true" class="sort-mark">{active ? (current.dir === 'ASC' ? '▲' : '▼') : '↕'}</span>
                    </button>
                  ) : c.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr><td class="empty" colSpan={columns.length + (onSelect === undefined ? 0 : 1)}>{empty}</td></tr>
          )}
          {rows.map((row, i) => {
            const key = keys[i] ?? i;
            return (
              <tr key={key} class={selected?.has(key) === true ? 'selected' : undefined}>
                {onSelect !== undefined && (
                  <td class="col-check">
                    <input type="checkbox" aria-label={`Select ${key}`} checked={selected?.has(key) === true} onChange={() => { toggle(key); }} />
                  </td>
                )}
                {columns.map((c) => <td key={c.key} class={c.class} data-label={c.label}>{c.render(row)}</td>)}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
