import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { FiqlInput } from '../components/fiql-input.js';
import { TextField } from '../rollouts/field.js';
import { FormDialog } from '../rollouts/form-dialog.js';
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
  const save = async (): Promise<void> => {
    const body = { name: name.trim(), query: query.trim() };
    if (filter === undefined) await api.send('POST', FILTERS, body);
    else await api.send('PUT', filterPath(filter.id), body);
    onSaved();
  };
  return (
    <FormDialog title={filter === undefined ? 'New target filter' : `Edit ${filter.name}`} onClose={onClose} onSubmit={save} submitLabel="Save">
      <TextField label="Name" value={name} required maxLength={128} onValue={setName} />
      <FiqlInput value={query} label="Query (FIQL)" placeholder="controllerid==line-a-*" onChange={(q) => { setQuery(q); }} />
    </FormDialog>
  );
}
