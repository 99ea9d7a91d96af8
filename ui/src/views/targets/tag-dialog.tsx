import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Dialog } from '../../components/dialog.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FormActions } from '../../components/form-actions.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { useSession } from '../../session.js';
import { inChunks } from './all-matching.js';

interface Tag {
  readonly id: number;
  readonly name: string;
}

interface Props {
  readonly open: boolean;
  readonly controllerIds: readonly string[];
  readonly onClose: () => void;
  readonly onDone: (summary: string) => void;
}

/** Tags the selected targets with an existing tag or a new one (`POST /targettags/{id}/assigned`). */
export function TagDialog({ open, controllerIds, onClose, onDone }: Props) {
  const session = useSession();
  const [tag, setTag] = useState<Tag | undefined>(undefined);
  const [newName, setNewName] = useState('');
  const { busy, error, run } = useSubmit();
  const [progress, setProgress] = useState<string | undefined>(undefined);
  const submit = (e: Event): void => {
    e.preventDefault();
    void run(async () => {
      let target = tag;
      if (newName.trim() !== '') {
        const created = await api.send<Tag[]>('POST', '/rest/v1/targettags', [{ name: newName.trim() }]);
        target = created?.[0];
      }
      if (target === undefined) return;
      const tagId = target.id;
      await inChunks(controllerIds, async (chunk) => { await api.send('POST', `/rest/v1/targettags/${tagId}/assigned`, chunk); },
        (done, total) => { setProgress(`${done.toLocaleString()} of ${total.toLocaleString()} tagged`); });
      onDone(`Tagged ${controllerIds.length} target(s) with ${target.name}.`);
    });
  };
  return (
    <Dialog title={`Tag ${controllerIds.length} target(s)`} open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <EntityPicker<Tag> id="tag-pick" path="/rest/v1/targettags" label="Tag" value={tag?.id}
          onChange={(_id, item) => { setTag(item); }} describe={(t) => t.name} search={(t) => `name==*${t}*`} />
        {session.can('CREATE_TARGET') && (
          <>
            <label for="tag-new">Or a new tag</label>
            <input id="tag-new" class="input" maxLength={64} value={newName} onInput={(e) => { setNewName(e.currentTarget.value); }} />
          </>
        )}
        {busy && progress !== undefined && <p class="muted" role="status">{progress}</p>}
        <FormActions label="Tag" busy={busy} disabled={tag === undefined && newName.trim() === ''} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
