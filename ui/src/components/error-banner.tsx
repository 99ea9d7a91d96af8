import type { ComponentChildren } from 'preact';

/** The text to show for any thrown value: the server's message for an ApiError, never a stack. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Something went wrong.';
}

interface Props {
  readonly error: unknown;
  readonly onRetry?: () => void;
  readonly children?: ComponentChildren;
}

/** Shows an error (nothing when `error` is null or undefined). */
export function ErrorBanner({ error, onRetry, children }: Props) {
  if (error === undefined || error === null) return null;
  return (
    <div class="banner banner-error" role="alert">
      <span>{errorText(error)}</span>
      {children}
      {onRetry !== undefined && <button type="button" class="btn btn-plain" onClick={onRetry}>Retry</button>}
    </div>
  );
}
