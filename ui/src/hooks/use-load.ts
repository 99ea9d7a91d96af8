import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  /** Loads again (after a change, or from a Retry button); keeps the old data while loading. */
  readonly reload: () => void;
}

/** Runs `load` on mount and whenever `deps` change; a later answer replaces an earlier one, never the reverse. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    latest.current().then(
      (value) => { if (mine === seq.current) { setData(value); setError(undefined); setLoading(false); } },
      (e: unknown) => { if (mine === seq.current) { setError(e); setLoading(false); } },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => { setTick((t) => t + 1); }, []);
  return { data, error, loading, reload };
}
