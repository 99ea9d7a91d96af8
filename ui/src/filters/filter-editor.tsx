import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { Dialog } from '../components/dialog.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FiqlInput } from '../components/fiql-input.js';
import { TextField } from '../rollouts/field.js';
import { FILTERS, filterPath, type TargetFilter } from './model.js';

interface Props {
  /** The filter to edit; undefined: a new one. */
  readonly filter?: TargetFilter;
  readonly onClose: () => void;
  readonly onSaved: () => void;
}

/** Create or edit a target filter: name and query, with the live count of matching targets. */
export function FilterEditor({ filter, onClose, onSaved }: Props) {
  const [name, setName] = useState(filter?.name ?? '');
  const [query, setQuery] = useState(filter?.query ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const save = async (): Promise<void> => {
    setBusy(true);
    try {
      if (filter === undefined) await api.send('POST', FILTERS, { name: name.trim(), query: query.trim() });
      else await api.send('PUT', filterPath(filter.id), { name: name.trim(), query: query.trim() });
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={filter === undefined ? 'New target filter' : `Edit ${filter.name}`} open onClose={onClose}>
      <form onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <TextField label="Name" value={name} required maxLength={128} onValue={setName} />
        <FiqlInput value={query} label="Query (FIQL)" placeholder="controllerid==line-a-*" onChange={(q) => { setQuery(q); }} />
        <ErrorBanner error={error} />
        <div class="dialog-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>Save</Button>
        </div>
      </form>
    </Dialog>
  );
}
