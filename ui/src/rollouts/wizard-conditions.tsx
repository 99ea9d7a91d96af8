import { SelectField, TextField } from './field.js';
import type { StepProps } from './wizard-basics.js';

/** Step 3: when a group succeeds (and what then) and when it fails (the rollout pauses). */
export function WizardConditions({ form, set }: StepProps) {
  return (
    <div class="form-grid">
      <TextField label="Success threshold (%)" type="number" min={0} max={100} value={form.successThreshold}
        hint="A group succeeds when this share of its targets finished." onValue={(successThreshold) => { set({ successThreshold }); }} />
      <SelectField label="On success" value={form.successAction} onValue={(successAction) => { set({ successAction }); }}
        options={[['NEXTGROUP', 'Start the next group'], ['PAUSE', 'Pause the rollout']]} />
      <TextField label="Error threshold (%)" type="number" min={0} max={100} value={form.errorThreshold}
        hint="The rollout pauses when more than this share of a group's targets failed." onValue={(errorThreshold) => { set({ errorThreshold }); }} />
    </div>
  );
}
