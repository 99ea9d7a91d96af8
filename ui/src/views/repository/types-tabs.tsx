import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import type { Column } from '../../components/data-table.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FormActions } from '../../components/form-actions.js';
import { TextInput } from '../../components/text-input.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { PERM } from '../../model/permissions.js';
import type { ModuleType, SetType } from '../../model/repository.js';
import { ListTab } from './list-tab.js';

interface Kind {
  readonly path: string;
  readonly noun: string;
  readonly title: string;
  readonly permission: readonly string[];
  /** Module types: how many modules of the type a set may hold. */
  readonly maxAssignments: boolean;
}

const MODULE_TYPES: Kind = {
  path: '/rest/v1/softwaremoduletypes', noun: 'module types', title: 'Create module type', permission: PERM.createModuleType, maxAssignments: true,
};
const SET_TYPES: Kind = {
  path: '/rest/v1/distributionsettypes', noun: 'set types', title: 'Create set type', permission: PERM.createSetType, maxAssignments: false,
};

function CreateTypeDialog({ kind, onClose }: { readonly kind: Kind; readonly onClose: () => void }) {
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [max, setMax] = useState('1');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event): void => {
    e.preventDefault();
    void run(async () => {
      const body = { name: name.trim(), key: key.trim(), description, ...(kind.maxAssignments ? { maxAssignments: Number(max) } : {}) };
      await api.send('POST', kind.path, [body]);
      onClose();
    });
  };
  return (
    <Dialog title={kind.title} open onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <TextInput id="ty-name" label="Name" value={name} onValue={setName} required maxLength={64} autoFocus />
        <TextInput id="ty-key" label="Key" value={key} onValue={setKey} required maxLength={64} mono />
        {kind.maxAssignments && <TextInput id="ty-max" label="Modules of this type per set" type="number" value={max} onValue={setMax} required />}
        <TextInput id="ty-desc" label="Description" value={description} onValue={setDescription} maxLength={512} />
        <FormActions label="Create" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function TypesTab<T extends ModuleType | SetType>({ kind, columns }: { readonly kind: Kind; readonly columns: readonly Column<T>[] }) {
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  return (
    <>
      <ListTab<T> path={kind.path} columns={columns} noun={kind.noun} placeholder="key==app*" version={version}
        actions={<Button permission={kind.permission} variant="primary" onClick={() => { setCreating(true); }}>{kind.title}</Button>} />
      {creating && <CreateTypeDialog kind={kind} onClose={() => { setCreating(false); setVersion(version + 1); }} />}
    </>
  );
}

const common = <T extends ModuleType | SetType>(): Column<T>[] => [
  { key: 'name', label: 'Name', sortField: 'name', render: (t) => t.name },
  { key: 'key', label: 'Key', sortField: 'key', render: (t) => <span class="mono">{t.key}</span> },
  { key: 'description', label: 'Description', render: (t) => t.description ?? '', class: 'hide-phone' },
];

const MODULE_COLUMNS: Column<ModuleType>[] = [
  ...common<ModuleType>(),
  { key: 'max', label: 'Per set', render: (t) => t.maxAssignments ?? '—', class: 'num' },
];

/** Software module types: list and create. */
export function ModuleTypesTab() {
  return <TypesTab<ModuleType> kind={MODULE_TYPES} columns={MODULE_COLUMNS} />;
}

/** Distribution set types: list and create. */
export function SetTypesTab() {
  return <TypesTab<SetType> kind={SET_TYPES} columns={common<SetType>()} />;
}
