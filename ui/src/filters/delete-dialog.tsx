import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { Dialog } from '../components/dialog.js';
import { ErrorBanner } from '../components/error-banner.js';
import { filterPath, type TargetFilter } from './model.js';

interface Props {
  readonly filter: TargetFilter;
  readonly onClose: () => void;
  readonly onDeleted: () => void;
}

/** Asks before deleting a filter (its auto-assignment ends with it). */
export function DeleteDialog({ filter, onClose, onDeleted }: Props) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const remove = async (): Promise<void> => {
    setBusy(true);
    try {
      await api.send('DELETE', filterPath(filter.id));
      onDeleted();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Delete ${filter.name}?`} open onClose={onClose}>
      <p>The filter <strong>{filter.name}</strong> is deleted{filter.autoAssignDistributionSet === null ? '' : ', and with it its auto-assignment'}.</p>
      <ErrorBanner error={error} />
      <div class="dialog-actions">
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="danger" busy={busy} onClick={() => { void remove(); }}>Delete</Button>
      </div>
    </Dialog>
  );
}
