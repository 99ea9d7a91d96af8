import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useLoad } from '../hooks/use-load.js';
import { ErrorBanner } from './error-banner.js';

interface Props<T> {
  /** The list to pick from (`/rest/v1/distributionsets`). */
  readonly path: string;
  readonly label: string;
  readonly value: number | undefined;
  readonly onChange: (id: number | undefined, item: T | undefined) => void;
  readonly describe: (item: T) => string;
  /** The FIQL for a search text (`name==*abc*`); the list is sorted by name. */
  readonly search?: (text: string) => string;
  readonly id: string;
}

/** A select over a server list (first 100 by name) with a search box that narrows it on the server. */
export function EntityPicker<T extends { readonly id: number }>({ path, label, value, onChange, describe, search, id }: Props<T>) {
  const [text, setText] = useState('');
  const q = search !== undefined && text.trim() !== '' ? search(text.trim().replace(/[*"'\\]/g, '')) : undefined;
  const list = useLoad(() => api.page<T>(path, { q, limit: 100, sort: 'name:ASC' }), [path, q]);
  const items = list.data?.content ?? [];
  return (
    <div>
      <label for={id}>{label}</label>
      {search !== undefined && (
        <input class="input" type="search" aria-label={`Search ${label.toLowerCase()}`} placeholder="Search by name" value={text}
          onInput={(e) => { setText(e.currentTarget.value); }} />
      )}
      <select id={id} class="input" size={Math.min(6, Math.max(2, items.length))} value={value === undefined ? '' : String(value)}
        onChange={(e) => {
          const picked = items.find((i) => String(i.id) === e.currentTarget.value);
          onChange(picked?.id, picked);
        }}>
        {items.map((item) => <option key={item.id} value={String(item.id)}>{describe(item)}</option>)}
      </select>
      {list.data !== undefined && list.data.total > items.length && <div class="muted">Showing {items.length} of {list.data.total}; search to narrow.</div>}
      {list.data !== undefined && items.length === 0 && <div class="muted">None found.</div>}
      <ErrorBanner error={list.error} />
    </div>
  );
}
