import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { Dialog } from '../components/dialog.js';
import { ErrorBanner } from '../components/error-banner.js';
import { DsSelect } from '../rollouts/ds-select.js';
import { CheckField, SelectField, TextField } from '../rollouts/field.js';
import { filterPath, type TargetFilter } from './model.js';

type AutoType = NonNullable<TargetFilter['autoAssignActionType']>;
const TYPES: readonly (readonly [AutoType, string])[] = [['forced', 'Forced'], ['soft', 'Soft'], ['downloadonly', 'Download only']];

interface Props {
  readonly filter: TargetFilter;
  readonly onClose: () => void;
  readonly onSaved: () => void;
}

/**
 * The filter's auto-assignment: every target the filter matches gets the set (POST .../autoAssignDS with
 * `{id, type, weight, confirmationRequired}`; time-forced is not allowed), or none (DELETE).
 */
export function AutoAssignDialog({ filter, onClose, onSaved }: Props) {
  const [dsId, setDsId] = useState<number | null>(filter.autoAssignDistributionSet);
  const [type, setType] = useState<AutoType>(filter.autoAssignActionType ?? 'forced');
  const [weight, setWeight] = useState(filter.autoAssignWeight === null ? '' : String(filter.autoAssignWeight));
  const [confirm, setConfirm] = useState(filter.confirmationRequired ?? false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const send = async (method: 'POST' | 'DELETE'): Promise<void> => {
    if (method === 'POST' && dsId === null) { setError('Choose the distribution set to assign.'); return; }
    setBusy(true);
    try {
      const body = { id: dsId, type, confirmationRequired: confirm, ...(weight.trim() === '' ? {} : { weight: Number(weight) }) };
      await api.send(method, `${filterPath(filter.id)}/autoAssignDS`, method === 'POST' ? body : undefined);
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Auto-assignment: ${filter.name}`} open onClose={onClose}>
      <form onSubmit={(e) => { e.preventDefault(); void send('POST'); }}>
        <DsSelect value={dsId} onChange={(id) => { setDsId(id); }} label="Distribution set to assign" />
        <SelectField label="Action type" value={type} options={TYPES} onValue={setType} />
        <TextField label="Weight (optional)" type="number" min={0} max={1000} value={weight} onValue={setWeight} />
        <CheckField label="Confirmation required on the device" checked={confirm} onValue={setConfirm} />
        <ErrorBanner error={error} />
        <div class="dialog-actions">
          {filter.autoAssignDistributionSet !== null && (
            <Button variant="danger" permission="UPDATE_TARGET" disabled={busy} onClick={() => { void send('DELETE'); }}>Remove auto-assignment</Button>
          )}
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>Save</Button>
        </div>
      </form>
    </Dialog>
  );
}
