/** A small busy indicator with an accessible name. */
export function Spinner({ label = 'Loading' }: { readonly label?: string }) {
  return <span class="spinner" role="status" aria-label={label} />;
}
