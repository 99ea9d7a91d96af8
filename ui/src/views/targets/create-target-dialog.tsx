import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FormActions } from '../../components/form-actions.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { navigate } from '../../router.js';

/** Registers a target by hand (`POST /rest/v1/targets`), then opens its page. */
export function CreateTargetDialog({ open, onClose }: { readonly open: boolean; readonly onClose: () => void }) {
  const [controllerId, setControllerId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event): void => {
    e.preventDefault();
    const id = controllerId.trim();
    void run(async () => {
      await api.send('POST', '/rest/v1/targets', [{ controllerId: id, name: name.trim() === '' ? id : name.trim(), description }]);
      onClose();
      navigate(`/targets/${encodeURIComponent(id)}`);
    });
  };
  return (
    <Dialog title="Create target" open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <label for="ct-id">Controller ID</label>
        <input id="ct-id" class="input mono" required maxLength={256} value={controllerId} autoFocus
          onInput={(e) => { setControllerId(e.currentTarget.value); }} />
        <label for="ct-name">Name <span class="muted">(defaults to the controller ID)</span></label>
        <input id="ct-name" class="input" maxLength={128} value={name} onInput={(e) => { setName(e.currentTarget.value); }} />
        <label for="ct-desc">Description</label>
        <input id="ct-desc" class="input" maxLength={512} value={description} onInput={(e) => { setDescription(e.currentTarget.value); }} />
        <FormActions label="Create" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
