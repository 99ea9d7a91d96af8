import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useLoad } from '../hooks/use-load.js';
import { useSubmit } from '../hooks/use-submit.js';
import { Button } from './button.js';
import { ErrorBanner } from './error-banner.js';
import { Spinner } from './spinner.js';

interface Entry { readonly key: string; readonly value: string }

interface Props {
  /** The owner's resource (`/rest/v1/targets/dev-1`); its metadata is `<base>/metadata`. */
  readonly base: string;
  /** Any of these permissions may change it (none: the entries are shown read-only). */
  readonly canEdit: boolean;
}

/**
 * An owner's metadata (key/value): shown, and for operators who may change the owner, added, edited
 * and deleted in place. Writes never read the reply's body (hawkBit 1.x answers them without one).
 */
export function MetadataCard({ base, canEdit }: Props) {
  const path = `${base}/metadata`;
  const list = useLoad(async () => (await api.page<Entry>(path, { limit: 500, sort: 'key:ASC' })).content, [path]);
  const change = useSubmit();
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const [newKey, setNewKey] = useState('');
  const [newValue, setNewValue] = useState('');
  const entryPath = (key: string): string => `${path}/${encodeURIComponent(key)}`;
  const save = (key: string): void => {
    void change.run(async () => {
      await api.send('PUT', entryPath(key), { value: draft });
      setEditing(undefined);
      list.reload();
    });
  };
  const add = (e: Event): void => {
    e.preventDefault();
    void change.run(async () => {
      await api.send('POST', path, [{ key: newKey.trim(), value: newValue }]);
      setNewKey('');
      setNewValue('');
      list.reload();
    });
  };
  const remove = (key: string): void => {
    void change.run(async () => {
      await api.send('DELETE', entryPath(key));
      list.reload();
    });
  };
  const entries = list.data;
  return (
    <div class="card">
      <h2>Metadata</h2>
      <ErrorBanner error={list.error ?? change.error} onRetry={list.reload} />
      {entries === undefined ? <Spinner /> : entries.length === 0 ? <p class="muted">No metadata.</p> : (
        <dl class="props" aria-label="Metadata">
          {entries.map((m) => [
            <dt key={`k-${m.key}`} class="mono">{m.key}</dt>,
            <dd key={`v-${m.key}`} class="mono">
              {editing === m.key ? (
                <form class="inline-edit" onSubmit={(e) => { e.preventDefault(); save(m.key); }}>
                  <input class="input mono" aria-label={`Value of ${m.key}`} value={draft} maxLength={4000} autoFocus
                    onInput={(e) => { setDraft(e.currentTarget.value); }} />
                  <Button type="submit" variant="primary" busy={change.busy}>Save</Button>
                  <Button onClick={() => { setEditing(undefined); }}>Cancel</Button>
                </form>
              ) : (
                <>
                  {m.value}
                  {canEdit && <Button aria-label={`Edit ${m.key}`} onClick={() => { setEditing(m.key); setDraft(m.value); }}>Edit</Button>}
                  {canEdit && <Button variant="danger" aria-label={`Delete ${m.key}`} busy={change.busy} onClick={() => { remove(m.key); }}>Delete</Button>}
                </>
              )}
            </dd>,
          ])}
        </dl>
      )}
      {canEdit && (
        <form class="inline-add" onSubmit={add} aria-label="Add metadata">
          <input class="input mono" aria-label="Key" placeholder="key" required maxLength={128} value={newKey}
            onInput={(e) => { setNewKey(e.currentTarget.value); }} />
          <input class="input mono" aria-label="Value" placeholder="value" maxLength={4000} value={newValue}
            onInput={(e) => { setNewValue(e.currentTarget.value); }} />
          <Button type="submit" busy={change.busy} disabled={newKey.trim() === ''}>Add</Button>
        </form>
      )}
    </div>
  );
}
