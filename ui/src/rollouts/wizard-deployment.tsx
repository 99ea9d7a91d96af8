import { useSession } from '../session.js';
import type { ActionType } from './model.js';
import { CheckField, SelectField, TextField } from './field.js';
import type { StepProps } from './wizard-basics.js';

const TYPES: readonly (readonly [ActionType, string])[] = [
  ['forced', 'Forced'], ['soft', 'Soft'], ['timeforced', 'Time-forced'], ['downloadonly', 'Download only'],
];

/** Step 4: action type (and force time), start (manual, or at a time: needs HANDLE_ROLLOUT), weight, confirmation. */
export function WizardDeployment({ form, set }: StepProps) {
  const session = useSession();
  return (
    <div class="form-grid">
      <SelectField label="Action type" value={form.type} options={TYPES} onValue={(type) => { set({ type }); }} />
      {form.type === 'timeforced' && (
        <TextField label="Forced from" type="datetime-local" value={form.forcetime} onValue={(forcetime) => { set({ forcetime }); }} />
      )}
      {session.can('HANDLE_ROLLOUT') && (
        <fieldset class="radio-row">
          <legend>Start</legend>
          <label class="check">
            <input type="radio" name="start-mode" checked={form.startMode === 'manual'} onChange={() => { set({ startMode: 'manual' }); }} />
            Manually
          </label>
          <label class="check">
            <input type="radio" name="start-mode" checked={form.startMode === 'at'} onChange={() => { set({ startMode: 'at' }); }} />
            At a time
          </label>
        </fieldset>
      )}
      {form.startMode === 'at' && (
        <TextField label="Start at" type="datetime-local" value={form.startAt} onValue={(startAt) => { set({ startAt }); }} />
      )}
      <TextField label="Weight (optional)" type="number" min={0} max={1000} value={form.weight}
        hint="0-1000; with multi-assignments the higher weight runs first." onValue={(weight) => { set({ weight }); }} />
      <CheckField label="Confirmation required on the device" checked={form.confirmationRequired}
        onValue={(confirmationRequired) => { set({ confirmationRequired }); }} />
    </div>
  );
}
