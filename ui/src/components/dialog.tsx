import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface Props {
  readonly title: string;
  readonly open: boolean;
  readonly onClose: () => void;
  readonly children?: ComponentChildren;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog on the native <dialog> (the page behind is inert): focus moves in on open, Tab cycles
 * inside, Escape closes, focus returns to where it was.
 */
export function Dialog({ title, open, onClose, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null || !open) return undefined;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    // the field marked autofocus, else the first control of the body, else the close button
    const first = dialog.querySelector<HTMLElement>('[autofocus]') ?? dialog.querySelector<HTMLElement>(`.dialog-body :is(${FOCUSABLE})`)
      ?? dialog.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      before?.focus();
    };
  }, [open]);
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key !== 'Tab' || ref.current === null) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (first === undefined || last === undefined) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  if (!open) return null;
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onKeyDown={onKeyDown}
      onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <header class="dialog-head">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="btn btn-plain btn-icon" aria-label="Close" onClick={onClose}>×</button>
      </header>
      <div class="dialog-body">{children}</div>
    </dialog>
  );
}
