import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { Dialog } from '../../components/dialog.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { nameVersion, type DistributionSet } from '../../model/repository.js';

interface Reply {
  readonly assigned?: number;
  readonly alreadyAssigned?: number;
  readonly total?: number;
}

interface Props {
  readonly open: boolean;
  readonly controllerIds: readonly string[];
  readonly onClose: () => void;
  /** After the assignment, with the server's counts. */
  readonly onDone: (summary: string) => void;
}

/** Assigns one distribution set to the selected targets (`POST /distributionsets/{id}/assignedTargets`). */
export function AssignDialog({ open, controllerIds, onClose, onDone }: Props) {
  const [setId, setSetId] = useState<number | undefined>(undefined);
  const [type, setType] = useState<'forced' | 'soft'>('forced');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event): void => {
    e.preventDefault();
    if (setId === undefined) return;
    void run(async () => {
      const reply = await api.send<Reply>('POST', `/rest/v1/distributionsets/${setId}/assignedTargets`,
        controllerIds.map((id) => ({ id, type })));
      onDone(`Assigned to ${reply?.assigned ?? 0} target(s); ${reply?.alreadyAssigned ?? 0} had it already.`);
    });
  };
  return (
    <Dialog title={`Assign a distribution set to ${controllerIds.length} target(s)`} open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <ErrorBanner error={error} />
        <EntityPicker<DistributionSet> id="assign-ds" path="/rest/v1/distributionsets" label="Distribution set" value={setId}
          onChange={(id) => { setSetId(id); }} describe={nameVersion} search={(t) => `name==*${t}*`} />
        <fieldset class="plain">
          <legend>Type</legend>
          <label class="inline"><input type="radio" name="assign-type" checked={type === 'forced'} onChange={() => { setType('forced'); }} /> Forced</label>
          <label class="inline"><input type="radio" name="assign-type" checked={type === 'soft'} onChange={() => { setType('soft'); }} /> Soft</label>
        </fieldset>
        <div class="form-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy} disabled={setId === undefined}>Assign</Button>
        </div>
      </form>
    </Dialog>
  );
}
