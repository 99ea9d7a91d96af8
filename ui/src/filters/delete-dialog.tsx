import { api } from '../api.js';
import { FormDialog } from '../rollouts/form-dialog.js';
import { filterPath, type TargetFilter } from './model.js';

interface Props {
  readonly filter: TargetFilter;
  readonly onClose: () => void;
  readonly onDeleted: () => void;
}

/** Asks before deleting a filter (its auto-assignment ends with it). */
export function DeleteDialog({ filter, onClose, onDeleted }: Props) {
  const remove = async (): Promise<void> => {
    await api.send('DELETE', filterPath(filter.id));
    onDeleted();
  };
  return (
    <FormDialog title={`Delete ${filter.name}?`} onClose={onClose} onSubmit={remove} submitLabel="Delete" variant="danger">
      <p>The filter <strong>{filter.name}</strong> is deleted{filter.autoAssignDistributionSet === null ? '' : ', and with it its auto-assignment'}.</p>
    </FormDialog>
  );
}
