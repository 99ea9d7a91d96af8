import { Button } from '../components/button.js';
import { newGroup, type GroupForm } from './create-body.js';
import { TextField } from './field.js';
import type { StepProps } from './wizard-basics.js';

/**
 * Step 2: a number of equal groups, or explicit groups, each with a name, an optional filter (ANDed
 * with the rollout's) and the percentage of the targets left by the groups before it.
 */
export function WizardGroups({ form, set }: StepProps) {
  const setGroup = (i: number, patch: Partial<GroupForm>): void => {
    set({ groups: form.groups.map((g, j) => (j === i ? { ...g, ...patch } : g)) });
  };
  return (
    <div class="form-grid">
      <fieldset class="radio-row">
        <legend>Groups</legend>
        <label class="check">
          <input type="radio" name="group-mode" checked={form.groupMode === 'amount'} onChange={() => { set({ groupMode: 'amount' }); }} />
          A number of equal groups
        </label>
        <label class="check">
          <input type="radio" name="group-mode" checked={form.groupMode === 'explicit'}
            onChange={() => { set({ groupMode: 'explicit', groups: form.groups.length > 0 ? form.groups : [newGroup(0)] }); }} />
          Explicit groups
        </label>
      </fieldset>
      {form.groupMode === 'amount' ? (
        <TextField label="Number of groups" type="number" min={1} value={form.amountGroups} inputMode="numeric"
          hint="Each group takes an equal share of the targets left." onValue={(amountGroups) => { set({ amountGroups }); }} />
      ) : (
        <div class="group-editor">
          {form.groups.map((g, i) => (
            <fieldset key={i} class="group-form">
              <legend>Group {i + 1}</legend>
              <TextField label="Name" value={g.name} onValue={(name) => { setGroup(i, { name }); }} />
              <TextField label="Target filter query (optional)" class="mono" value={g.targetFilterQuery} placeholder="attribute.region==eu"
                onValue={(targetFilterQuery) => { setGroup(i, { targetFilterQuery }); }} />
              <TextField label="Target percentage" type="number" min={1} max={100} value={g.targetPercentage}
                hint="Per cent of the matching targets the groups before it did not take (1-100)." onValue={(targetPercentage) => { setGroup(i, { targetPercentage }); }} />
              <Button variant="plain" aria-label={`Remove group ${i + 1}`} disabled={form.groups.length === 1}
                onClick={() => { set({ groups: form.groups.filter((_, j) => j !== i) }); }}>Remove</Button>
            </fieldset>
          ))}
          <Button onClick={() => { set({ groups: [...form.groups, newGroup(form.groups.length)] }); }}>Add group</Button>
        </div>
      )}
    </div>
  );
}
