/**
 * The messages of one delivery (a hub read's entries) for one stream filter, made once however many
 * subscribers share them: the hub hands every subscriber the same entries array, and the transports
 * cache their wire form of the same messages array (src/http/feed.ts).
 *
 * A stream with `progress` (a rollout's) shows the action changes of each rollout group in a delivery
 * as one `progress` event with the group's counts, in place of the group's last action event there:
 * a group start of 2,000 actions is one message, not 2,000, for each subscriber.
 */
import type { JournalEvent } from '../../actors/journal.js';
import type { FeedMessage } from '../../http/types.js';
import type { JournalEntry } from '../../store/port.js';

/** A group's progress as a `progress` event shows it (besides kind and changes). */
export type GroupProgress = Readonly<Record<string, unknown>>;

export interface StreamFilter {
  /** Names the filter: streams with the same key accept the same events (their messages are made once). */
  readonly key: string;
  /** Which events this stream shows. */
  readonly accepts: (e: JournalEvent) => boolean;
  /**
   * Set: accepted action events of a rollout group become one `progress` event per group and delivery,
   * with what this returns for the group, read after the delivery's entries were committed (a group
   * missing from the map was deleted: no progress event; its group event says so).
   */
  readonly progress?: (groups: readonly number[]) => Promise<ReadonlyMap<number, GroupProgress>>;
}

export interface Rendered {
  /** null: nothing passes the filter. */
  readonly messages: readonly FeedMessage[] | null;
  /** The group counts in it were read as the `read`th such read of this process (0: it has none). */
  readonly read: number;
}

/** Counts reads of this process, in the order they started. */
let reads = 0;

/** How the data of an event reads on the wire: `kind` instead of the journal's `type`. */
function eventData(e: JournalEvent): string {
  const { type, ...rest } = e;
  return JSON.stringify({ kind: type, ...rest });
}

/** One message, or a group's progress to be read, with the entry it comes from. */
interface Item {
  readonly entry: string;
  readonly message?: FeedMessage;
  readonly group?: number;
}

/**
 * What a subscriber receives for `entries`. Each entry's id goes on its last message: a client that
 * resumes from it has seen the whole entry (a progress event stands for its group's changes up to there:
 * its counts are read after them, so a client resuming from any id still gets its group's later changes).
 */
export function render(entries: readonly JournalEntry[], stream: StreamFilter): Rendered | Promise<Rendered> {
  const items: Item[] = [];
  /** A group's number of action changes here, and the index of its last one in `items`. */
  const groups = new Map<number, { changes: number; at: number }>();
  for (const entry of entries) {
    for (const e of entry.events as readonly JournalEvent[]) {
      if (!stream.accepts(e)) continue;
      if (stream.progress !== undefined && e.type === 'action' && e.groupId !== null) {
        const g = groups.get(e.groupId);
        groups.set(e.groupId, { changes: (g?.changes ?? 0) + 1, at: items.length });
        items.push({ entry: entry.id, group: e.groupId });
      } else {
        items.push({ entry: entry.id, message: { event: e.type, data: eventData(e) } });
      }
    }
  }
  if (groups.size === 0) return { messages: withIds(items, () => undefined), read: 0 };
  const kept = items.filter((item, i) => item.group === undefined || groups.get(item.group)?.at === i);
  const read = ++reads;
  return (stream.progress as NonNullable<StreamFilter['progress']>)([...groups.keys()]).then((progress) => ({
    read,
    messages: withIds(kept, (group) => {
      const p = progress.get(group);
      return p === undefined ? undefined : { event: 'progress', data: JSON.stringify({ kind: 'progress', ...p, changes: groups.get(group)?.changes }) };
    }),
  }));
}

/** The items' messages, each entry's id on its last one; null when there are none. */
function withIds(items: readonly Item[], progressOf: (group: number) => FeedMessage | undefined): readonly FeedMessage[] | null {
  const out: FeedMessage[] = [];
  let last: string | undefined;
  for (const item of items) {
    const m = item.message ?? progressOf(item.group as number);
    if (m === undefined) continue;
    if (last !== undefined && last !== item.entry) out[out.length - 1] = { ...(out[out.length - 1] as FeedMessage), id: last };
    out.push(m);
    last = item.entry;
  }
  if (last === undefined) return null;
  out[out.length - 1] = { ...(out[out.length - 1] as FeedMessage), id: last };
  return out;
}

const cache = new WeakMap<readonly JournalEntry[], Map<string, Rendered | Promise<Rendered>>>();

/** `render`, once per entries array and filter. */
export function rendered(entries: readonly JournalEntry[], stream: StreamFilter): Rendered | Promise<Rendered> {
  let byKey = cache.get(entries);
  if (byKey === undefined) cache.set(entries, (byKey = new Map<string, Rendered | Promise<Rendered>>()));
  const known = byKey.get(stream.key);
  if (known !== undefined) return known;
  const made = render(entries, stream);
  byKey.set(stream.key, made);
  // a failed read is not kept: the next subscriber tries again
  if (made instanceof Promise) made.catch(() => byKey.delete(stream.key));
  return made;
}
