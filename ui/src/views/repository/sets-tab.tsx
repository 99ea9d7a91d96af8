import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import type { Column } from '../../components/data-table.js';
import { Dialog } from '../../components/dialog.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FormActions } from '../../components/form-actions.js';
import { formatTime } from '../../components/format.js';
import { TextInput } from '../../components/text-input.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { PERM } from '../../model/permissions.js';
import type { DistributionSet, SetType } from '../../model/repository.js';
import { href, navigate } from '../../router.js';
import { ListTab } from './list-tab.js';

/** A set's state as a pill: invalidated, incomplete (modules missing), or ready. */
export function SetState({ set }: { readonly set: DistributionSet }) {
  if (set.valid === false) return <span class="pill pill-error">Invalidated</span>;
  if (set.complete === false) return <span class="pill pill-other">Incomplete</span>;
  return <span class="pill pill-success">{set.locked === true ? 'Ready · locked' : 'Ready'}</span>;
}

const COLUMNS: Column<DistributionSet>[] = [
  { key: 'name', label: 'Name', sortField: 'name', render: (s) => <a href={href(`/repository/sets/${s.id}`)}>{s.name}</a> },
  { key: 'version', label: 'Version', sortField: 'version', render: (s) => <span class="mono">{s.version}</span> },
  { key: 'type', label: 'Type', render: (s) => s.typeName ?? s.type },
  { key: 'state', label: 'State', render: (s) => <SetState set={s} /> },
  { key: 'modified', label: 'Modified', sortField: 'lastModifiedAt', render: (s) => formatTime(s.lastModifiedAt), class: 'hide-phone' },
];

function CreateSetDialog({ onClose }: { readonly onClose: () => void }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const [type, setType] = useState<SetType | undefined>(undefined);
  const [description, setDescription] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event): void => {
    e.preventDefault();
    void run(async () => {
      const body = { name: name.trim(), version: version.trim(), description, ...(type === undefined ? {} : { type: type.key }) };
      const created = await api.send<DistributionSet[]>('POST', '/rest/v1/distributionsets', [body]);
      const id = created?.[0]?.id;
      onClose();
      if (id !== undefined) navigate(`/repository/sets/${id}`);
    });
  };
  return (
    <Dialog title="Create distribution set" open onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <TextInput id="cs-name" label="Name" value={name} onValue={setName} required maxLength={128} autoFocus />
        <TextInput id="cs-version" label="Version" value={version} onValue={setVersion} required maxLength={64} mono />
        <EntityPicker<SetType> id="cs-type" path="/rest/v1/distributionsettypes" label="Type (the tenant's default when none is picked)"
          value={type?.id} onChange={(_id, item) => { setType(item); }} describe={(t) => `${t.name} (${t.key})`} />
        <TextInput id="cs-desc" label="Description" value={description} onValue={setDescription} maxLength={512} />
        <p class="muted">Add software modules on the set's page.</p>
        <FormActions label="Create" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** Distribution sets: list and create. */
export function SetsTab() {
  const [creating, setCreating] = useState(false);
  return (
    <>
      <ListTab<DistributionSet> path="/rest/v1/distributionsets" columns={COLUMNS} noun="distribution sets" placeholder="name==release* and complete==true"
        actions={<Button permission={PERM.createSet} variant="primary" onClick={() => { setCreating(true); }}>Create set</Button>} />
      {creating && <CreateSetDialog onClose={() => { setCreating(false); }} />}
    </>
  );
}
