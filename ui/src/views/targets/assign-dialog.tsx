import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Dialog } from '../../components/dialog.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { FormActions } from '../../components/form-actions.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { nameVersion, type DistributionSet } from '../../model/repository.js';
import { inChunks } from './all-matching.js';

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
  const [progress, setProgress] = useState<string | undefined>(undefined);
  const submit = (e: Event): void => {
    e.preventDefault();
    if (setId === undefined) return;
    void run(async () => {
      let assigned = 0;
      let already = 0;
      await inChunks(controllerIds, async (chunk) => {
        const reply = await api.send<Reply>('POST', `/rest/v1/distributionsets/${setId}/assignedTargets`, chunk.map((id) => ({ id, type })));
        assigned += reply?.assigned ?? 0;
        already += reply?.alreadyAssigned ?? 0;
      }, (done, total) => { setProgress(`${done.toLocaleString()} of ${total.toLocaleString()} sent`); });
      onDone(`Assigned to ${assigned} target(s); ${already} had it already.`);
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
        {busy && progress !== undefined && <p class="muted" role="status">{progress}</p>}
        <FormActions label="Assign" busy={busy} disabled={setId === undefined} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
