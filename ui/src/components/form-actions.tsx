import { Button } from './button.js';

/** A dialog form's buttons: Cancel, and the submit button named for what it does. */
export function FormActions({ label, busy, disabled, onCancel }: {
  readonly label: string;
  readonly busy: boolean;
  readonly disabled?: boolean;
  readonly onCancel: () => void;
}) {
  return (
    <div class="form-actions">
      <Button onClick={onCancel}>Cancel</Button>
      <Button type="submit" variant="primary" busy={busy} disabled={disabled}>{label}</Button>
    </div>
  );
}
