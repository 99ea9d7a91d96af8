import { EntityPicker } from '../components/entity-picker.js';
import { FiqlInput } from '../components/fiql-input.js';
import { nameVersion, type DistributionSet } from '../model/repository.js';
import type { RolloutForm } from './create-body.js';
import { TextField } from './field.js';

export interface StepProps {
  readonly form: RolloutForm;
  readonly set: (patch: Partial<RolloutForm>) => void;
}

/** Step 1: name, description, the set to deploy, the targets (FIQL with the live matching count). */
export function WizardBasics({ form, set }: StepProps) {
  return (
    <div class="form-grid">
      <TextField label="Name" value={form.name} required maxLength={128} onValue={(name) => { set({ name }); }} autoFocus />
      <TextField label="Description" value={form.description} maxLength={512} onValue={(description) => { set({ description }); }} />
      <EntityPicker<DistributionSet> id="rollout-ds" path="/rest/v1/distributionsets" label="Distribution set" value={form.distributionSetId ?? undefined}
        onChange={(id) => { set({ distributionSetId: id ?? null }); }} describe={nameVersion} search={(t) => `name==*${t}*`} />
      <FiqlInput value={form.targetFilterQuery} label="Target filter query" placeholder="controllerid==line-a-*"
        onChange={(targetFilterQuery, targetFilterValid) => { set({ targetFilterQuery, targetFilterValid }); }} />
    </div>
  );
}
