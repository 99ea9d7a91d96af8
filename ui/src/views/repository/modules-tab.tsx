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
import type { ModuleType, SoftwareModule } from '../../model/repository.js';
import { href, navigate } from '../../router.js';
import { ListTab } from './list-tab.js';

const COLUMNS: Column<SoftwareModule>[] = [
  { key: 'name', label: 'Name', sortField: 'name', render: (m) => <a href={href(`/repository/modules/${m.id}`)}>{m.name}</a> },
  { key: 'version', label: 'Version', sortField: 'version', render: (m) => <span class="mono">{m.version}</span> },
  { key: 'type', label: 'Type', render: (m) => m.typeName ?? m.type },
  { key: 'vendor', label: 'Vendor', sortField: 'vendor', render: (m) => m.vendor ?? '—', class: 'hide-phone' },
  { key: 'modified', label: 'Modified', sortField: 'lastModifiedAt', render: (m) => formatTime(m.lastModifiedAt), class: 'hide-phone' },
];

function CreateModuleDialog({ onClose }: { readonly onClose: () => void }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const [type, setType] = useState<ModuleType | undefined>(undefined);
  const [vendor, setVendor] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event): void => {
    e.preventDefault();
    if (type === undefined) return;
    void run(async () => {
      const created = await api.send<SoftwareModule[]>('POST', '/rest/v1/softwaremodules',
        [{ name: name.trim(), version: version.trim(), type: type.key, vendor: vendor.trim(), description }]);
      const id = created?.[0]?.id;
      onClose();
      if (id !== undefined) navigate(`/repository/modules/${id}`);
    });
  };
  return (
    <Dialog title="Create software module" open onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <TextInput id="cm-name" label="Name" value={name} onValue={setName} required maxLength={128} autoFocus />
        <TextInput id="cm-version" label="Version" value={version} onValue={setVersion} required maxLength={64} mono />
        <EntityPicker<ModuleType> id="cm-type" path="/rest/v1/softwaremoduletypes" label="Type" value={type?.id}
          onChange={(_id, item) => { setType(item); }} describe={(t) => `${t.name} (${t.key})`} />
        <TextInput id="cm-vendor" label="Vendor" value={vendor} onValue={setVendor} maxLength={256} />
        <TextInput id="cm-desc" label="Description" value={description} onValue={setDescription} maxLength={512} />
        <FormActions label="Create" busy={busy} disabled={type === undefined} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** Software modules: list and create. */
export function ModulesTab() {
  const [creating, setCreating] = useState(false);
  return (
    <>
      <ListTab<SoftwareModule> path="/rest/v1/softwaremodules" columns={COLUMNS} noun="software modules" placeholder="name==app* and type==os"
        actions={<Button permission={PERM.createModule} variant="primary" onClick={() => { setCreating(true); }}>Create module</Button>} />
      {creating && <CreateModuleDialog onClose={() => { setCreating(false); }} />}
    </>
  );
}
