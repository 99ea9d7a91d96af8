/**
 * Live updates over Server-Sent Events (`/rest/v1/events?kinds=...`, `/rest/v1/rollouts/{id}/events`):
 * the session cookie authenticates them. First an `event: snapshot`, then one event per change named
 * by its kind. Reconnects with backoff when the server closes the stream.
 */
import { useEffect, useRef } from 'preact/hooks';

/** One event: `type` is the SSE event name (`snapshot`, `target`, `action`, `rollout`, `group`, `progress`). */
export interface LiveEvent {
  readonly type: string;
  readonly data: unknown;
}

const NAMES = ['snapshot', 'target', 'action', 'rollout', 'group', 'progress', 'message'];

/**
 * Subscribes while mounted (`url` null: not at all); `onEvent` may change between renders. `onDown`, when
 * given, hears of every lost or refused connection (a new `snapshot` follows when the stream is back).
 */
export function useEvents(url: string | null, onEvent: (event: LiveEvent) => void, onDown?: () => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const down = useRef(onDown);
  down.current = onDown;
  useEffect(() => {
    if (url === null || typeof EventSource === 'undefined') return undefined;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = 1000;
    let stopped = false;
    const deliver = (e: MessageEvent<string>): void => {
      delay = 1000;
      let data: unknown = e.data;
      try {
        data = JSON.parse(e.data) as unknown;
      } catch {
        // not JSON: hand over the text
      }
      handler.current({ type: e.type, data });
    };
    const open = (): void => {
      source = new EventSource(url, { withCredentials: true });
      for (const name of NAMES) source.addEventListener(name, deliver as EventListener);
      source.onerror = () => {
        if (!stopped) down.current?.();
        // EventSource retries by itself while CONNECTING; a closed stream (non-200) needs a new one
        if (source?.readyState !== EventSource.CLOSED || stopped) return;
        source.close();
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 30_000);
      };
    };
    open();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
    };
  }, [url]);
}
