/**
 * A rollout and one page of its groups, kept current: from the rollout's event stream
 * (`/rest/v1/rollouts/{id}/events`: a snapshot, then rollout, group and progress events (a group's
 * action changes, with its counts; actions outside a group come as action events), after which
 * the counts are fetched again, at most every 500 ms), or by polling every 2 s while the stream is
 * down (a lost or refused connection, or no snapshot within 3 s: a proxy that buffers) until its next
 * snapshot. Counts are never computed here.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useEvents, type LiveEvent } from '../events.js';
import { rolloutPath, type Rollout, type RolloutGroup } from './model.js';

export type LiveMode = 'connecting' | 'stream' | 'polling';

export interface LiveRollout {
  readonly rollout: Rollout | undefined;
  readonly groups: readonly RolloutGroup[];
  readonly groupTotal: number;
  readonly error: unknown;
  readonly mode: LiveMode;
  /** Fetches rollout and groups now (after an operation). */
  readonly reload: () => void;
}

const THROTTLE_MS = 500;
const POLL_MS = 2000;
const STREAM_WAIT_MS = 3000;

interface Snapshot extends Rollout {
  readonly groups?: readonly RolloutGroup[];
}

export function useRolloutLive(id: number, groupOffset: number, groupLimit: number): LiveRollout {
  const [rollout, setRollout] = useState<Rollout>();
  const [groups, setGroups] = useState<readonly RolloutGroup[]>([]);
  const [groupTotal, setGroupTotal] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [mode, setMode] = useState<LiveMode>('connecting');
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const lastFetch = useRef(0);
  const alive = useRef(true);
  /** The latest read: an earlier one that answers later never overwrites it. */
  const seq = useRef(0);

  const fetchNow = useCallback(async () => {
    lastFetch.current = Date.now();
    const mine = ++seq.current;
    try {
      const base = rolloutPath(id);
      const [r, page] = await Promise.all([
        api.get<Rollout>(base),
        api.page<RolloutGroup>(`${base}/deploygroups?representation=full`, { offset: groupOffset, limit: groupLimit, sort: 'id:ASC' }),
      ]);
      if (!alive.current || mine !== seq.current) return;
      setRollout(r);
      setGroups(page.content);
      setGroupTotal(page.total);
      setError(null);
    } catch (e) {
      if (alive.current && mine === seq.current) setError(e);
    }
  }, [id, groupOffset, groupLimit]);

  /** At most one fetch per THROTTLE_MS; a burst of events ends in one fetch after the last. */
  const schedule = useCallback(() => {
    if (pending.current !== undefined) return;
    const wait = Math.max(0, lastFetch.current + THROTTLE_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = undefined;
      void fetchNow();
    }, wait);
  }, [fetchNow]);

  useEffect(() => {
    alive.current = true;
    void fetchNow();
    return () => {
      alive.current = false;
      if (pending.current !== undefined) clearTimeout(pending.current);
      pending.current = undefined;
    };
  }, [fetchNow]);

  const onEvent = (event: LiveEvent): void => {
    if (event.type === 'snapshot') {
      setMode('stream');
      // the snapshot's rollout at once; the groups page (offset, limit) is fetched as after any event
      const snap = event.data as Snapshot | null;
      if (snap !== null && typeof snap === 'object' && snap.id === id) {
        const { groups: _groups, ...r } = snap;
        setRollout(r);
      }
      schedule();
      return;
    }
    if (event.type === 'rollout' || event.type === 'group' || event.type === 'progress' || event.type === 'action') schedule();
  };
  useEvents(`${rolloutPath(id)}/events`, onEvent, () => { setMode('polling'); });

  // no snapshot in time: poll until one comes
  useEffect(() => {
    if (mode === 'stream') return undefined;
    const start = setTimeout(() => { setMode('polling'); }, mode === 'connecting' ? STREAM_WAIT_MS : 0);
    const poll = mode === 'polling' ? setInterval(() => { void fetchNow(); }, POLL_MS) : undefined;
    return () => {
      clearTimeout(start);
      if (poll !== undefined) clearInterval(poll);
    };
  }, [mode, fetchNow]);

  return { rollout, groups, groupTotal, error, mode, reload: () => { void fetchNow(); } };
}
