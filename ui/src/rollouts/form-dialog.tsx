import type { ComponentChildren } from 'preact';
import { Button } from '../components/button.js';
import { Dialog } from '../components/dialog.js';
import { ErrorBanner } from '../components/error-banner.js';
import { useSubmit } from '../hooks/use-submit.js';

interface Props {
  readonly title: string;
  readonly onClose: () => void;
  /** The submit button's work; a rejection (the server's error, or a thrown Error) is shown in the dialog. */
  readonly onSubmit: () => Promise<void>;
  readonly submitLabel: string;
  readonly variant?: 'primary' | 'danger';
  readonly children?: ComponentChildren;
  /** Buttons before Cancel; `run` does their work with the same busy state and error display. */
  readonly more?: (run: (work: () => Promise<void>) => void, busy: boolean) => ComponentChildren;
}

/** A modal form: fields, the error of the last attempt, Cancel and the submit button (busy while it works). */
export function FormDialog({ title, onClose, onSubmit, submitLabel, variant = 'primary', children, more }: Props) {
  const { busy, error, run: submit } = useSubmit();
  const run = (work: () => Promise<void>): void => { void submit(work); };
  return (
    <Dialog title={title} open onClose={onClose}>
      <form onSubmit={(e) => { e.preventDefault(); run(onSubmit); }}>
        {children}
        <ErrorBanner error={error} />
        <div class="dialog-actions">
          {more?.(run, busy)}
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant={variant} busy={busy}>{submitLabel}</Button>
        </div>
      </form>
    </Dialog>
  );
}
