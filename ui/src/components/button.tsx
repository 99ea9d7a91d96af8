import type { JSX } from 'preact';
import { useSession } from '../session.js';

type Props = JSX.HTMLAttributes<HTMLButtonElement> & {
  /** Rendered only for operators holding this permission (any of a list). */
  readonly permission?: string | readonly string[];
  readonly variant?: 'primary' | 'danger' | 'plain';
  /** Disabled with a busy look while an operation runs. */
  readonly busy?: boolean;
  readonly type?: 'button' | 'submit' | 'reset';
  readonly disabled?: boolean;
};

/** A real button; absent when the operator lacks `permission` (a read-only user sees no button that would 403). */
export function Button({ permission, variant = 'plain', busy = false, type = 'button', disabled, class: extra, ...rest }: Props) {
  const session = useSession();
  if (permission !== undefined && !session.can(permission)) return null;
  const className = ['btn', `btn-${variant}`, busy ? 'btn-busy' : '', typeof extra === 'string' ? extra : ''].filter((c) => c !== '').join(' ');
  return <button {...rest} type={type} class={className} disabled={disabled === true || busy} aria-busy={busy} />;
}
