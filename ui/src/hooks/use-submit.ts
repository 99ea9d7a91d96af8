import { useState } from 'preact/hooks';

export interface Submit {
  readonly busy: boolean;
  /** The last attempt's error (the server's message for an ApiError); cleared when the next one starts. */
  readonly error: unknown;
  /** Runs `work` with `busy` set, keeping its error; returns whether it succeeded. */
  readonly run: (work: () => Promise<void>) => Promise<boolean>;
}

/** Busy state and error of a form's submit (dialogs, inline edits). */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
