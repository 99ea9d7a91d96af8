import { statusKind, statusLabel } from '../model/target.js';

/** A target's update status (or an action's) as a coloured pill. */
export function StatusPill({ status }: { readonly status: string | undefined }) {
  return <span class={`pill pill-${statusKind(status)}`}>{statusLabel(status)}</span>;
}
