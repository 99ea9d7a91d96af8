import { useEffect, useRef } from 'preact/hooks';
import { useEvents, type LiveEvent } from '../events.js';

/**
 * Calls `refresh` every `everyMs`, and soon after live events from `eventsUrl` (at most once per
 * `throttleMs`, so a burst of device events costs one reload).
 */
export function useRefresh(refresh: () => void, { eventsUrl, everyMs = 10_000, throttleMs = 2_000 }: {
  readonly eventsUrl?: string | null;
  readonly everyMs?: number;
  readonly throttleMs?: number;
}): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const timer = setInterval(() => { latest.current(); }, everyMs);
    return () => {
      clearInterval(timer);
      if (pending.current !== undefined) clearTimeout(pending.current);
    };
  }, [everyMs]);
  useEvents(eventsUrl ?? null, (event: LiveEvent) => {
    if (event.type === 'snapshot' || pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      latest.current();
    }, throttleMs);
  });
}
