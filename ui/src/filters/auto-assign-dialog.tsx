import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Button } from '../components/button.js';
import { EntityPicker } from '../components/entity-picker.js';
import { nameVersion, type DistributionSet } from '../model/repository.js';
import { CheckField, SelectField, TextField } from '../rollouts/field.js';
import { FormDialog } from '../rollouts/form-dialog.js';
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
  const path = `${filterPath(filter.id)}/autoAssignDS`;
  const save = async (): Promise<void> => {
    if (dsId === null) throw new Error('Choose the distribution set to assign.');
    await api.send('POST', path, { id: dsId, type, confirmationRequired: confirm, ...(weight.trim() === '' ? {} : { weight: Number(weight) }) });
    onSaved();
  };
  const remove = async (): Promise<void> => {
    await api.send('DELETE', path);
    onSaved();
  };
  return (
    <FormDialog title={`Auto-assignment: ${filter.name}`} onClose={onClose} onSubmit={save} submitLabel="Save"
      more={(run, busy) => filter.autoAssignDistributionSet !== null && (
        <Button variant="danger" permission="UPDATE_TARGET" disabled={busy} onClick={() => { run(remove); }}>Remove auto-assignment</Button>
      )}>
      <EntityPicker<DistributionSet> id="auto-ds" path="/rest/v1/distributionsets" label="Distribution set to assign" value={dsId ?? undefined}
        onChange={(id) => { setDsId(id ?? null); }} describe={nameVersion} search={(t) => `name==*${t}*`} />
      <SelectField label="Action type" value={type} options={TYPES} onValue={setType} />
      <TextField label="Weight (optional)" type="number" min={0} max={1000} value={weight} onValue={setWeight} />
      <CheckField label="Confirmation required on the device" checked={confirm} onValue={setConfirm} />
    </FormDialog>
  );
}
