import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { navigate } from '../router.js';
import { Button } from './button.js';
import { Dialog } from './dialog.js';
import { ErrorBanner } from './error-banner.js';

interface Props {
  /** What is deleted, as the dialog's title says it ("software module"). */
  readonly what: string;
  /** The resource to DELETE. */
  readonly path: string;
  /** Where to go once it is gone. */
  readonly then: string;
  /** Any of these permissions shows the button (none of them: no button, as the server would refuse). */
  readonly permission: string | readonly string[];
  /** The question in the dialog. */
  readonly children: ComponentChildren;
}

/** A Delete button that asks first, deletes, and goes on to `then`; the server's refusal shows in the dialog. */
export function DeleteButton({ what, path, then, permission, children }: Props) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const remove = async (): Promise<void> => {
    setBusy(true);
    try {
      await api.send('DELETE', path);
      navigate(then);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const close = (): void => { setOpen(false); setError(undefined); };
  return (
    <>
      <Button permission={permission} variant="danger" onClick={() => { setOpen(true); }}>Delete</Button>
      {open && (
        <Dialog title={`Delete ${what}`} open onClose={close}>
          {children}
          <ErrorBanner error={error} />
          <div class="form-actions">
            <Button onClick={close}>Cancel</Button>
            <Button variant="danger" busy={busy} onClick={() => { void remove(); }}>Delete</Button>
          </div>
        </Dialog>
      )}
    </>
  );
}
