/**
 * A live event stream as a reply: a snapshot on connect, then the journal's changes that pass the
 * filter. `Last-Event-ID` (or `?lastEventId=` where a client cannot set headers, as a browser's
 * WebSocket) resumes after that event without a snapshot while the journal still holds everything
 * after it; otherwise the stream starts afresh with a snapshot.
 */
import type { JournalEvent } from '../../actors/journal.js';
import { AppError } from '../../domain/errors.js';
import type { EventHub } from '../../events/hub.js';
import type { FeedMessage, Reply, Request } from '../../http/types.js';
import { compareJournalIds, parseJournalId } from '../../store/journal.js';
import type { JournalEntry, Tenant } from '../../store/port.js';
import { show } from '../../query/operands.js';

export interface LiveStream {
  /** Names the filter: streams with the same key accept the same events (their messages are made once). */
  readonly key: string;
  /** Which events this stream shows. */
  readonly accepts: (e: JournalEvent) => boolean;
  /** What the client sees first: the current state the events then change. */
  readonly snapshot: () => Promise<unknown>;
}

/** How the data of an event reads on the wire: `kind` instead of the journal's `type`. */
function eventData(e: JournalEvent): string {
  const { type, ...rest } = e;
  return JSON.stringify({ kind: type, ...rest });
}

/**
 * The messages of one read's entries for one filter, made once however many subscribers share them:
 * the hub hands every subscriber the same entries array, and the transports cache their wire form
 * of the same messages array (src/http/feed.ts). null: nothing passes the filter.
 */
const rendered = new WeakMap<readonly JournalEntry[], Map<string, readonly FeedMessage[] | null>>();

function messagesOf(entries: readonly JournalEntry[], stream: LiveStream): readonly FeedMessage[] | null {
  let byKey = rendered.get(entries);
  if (byKey === undefined) rendered.set(entries, (byKey = new Map<string, readonly FeedMessage[] | null>()));
  const known = byKey.get(stream.key);
  if (known !== undefined) return known;
  const out: FeedMessage[] = [];
  for (const entry of entries) {
    const before = out.length;
    for (const e of entry.events as readonly JournalEvent[]) if (stream.accepts(e)) out.push({ event: e.type, data: eventData(e) });
    // the entry's id goes on its last message: a client that resumes from it has seen the whole entry
    if (out.length > before) out[out.length - 1] = { ...(out[out.length - 1] as FeedMessage), id: entry.id };
  }
  const messages = out.length === 0 ? null : out;
  byKey.set(stream.key, messages);
  return messages;
}

export function resumeId(req: Request): string | undefined {
  const raw = req.headers['last-event-id'] ?? req.query.get('lastEventId') ?? undefined;
  if (raw === undefined || raw === '') return undefined;
  if (parseJournalId(raw) === undefined) {
    throw new AppError('BAD_PARAMETER', `Last-Event-ID must be an event id as this server sends them (digits-digits), got '${show(raw)}'`);
  }
  return raw;
}

export async function liveReply(hub: EventHub, tenant: Tenant, req: Request, stream: LiveStream): Promise<Reply> {
  const resume = resumeId(req);
  const position = await hub.position(tenant);
  // an id this journal has not reached (another server's, another tenant's) cannot be resumed from
  const resumable = resume !== undefined && compareJournalIds(resume, position) <= 0 && (await hub.holdsAfter(tenant, resume));
  const from = resumable ? resume : position;
  const snapshot = resumable ? undefined : JSON.stringify(await stream.snapshot());
  return {
    status: 200,
    feed: {
      start(sink) {
        if (snapshot !== undefined) sink.send([{ id: from, event: 'snapshot', data: snapshot }]);
        const subscription = hub.subscribe(tenant, from, {
          deliver(entries) {
            const messages = messagesOf(entries, stream);
            if (messages !== null) sink.send(messages);
          },
          lost() {
            sink.end('events were missed (the journal moved on); reconnect for a new snapshot');
          },
        });
        return () => subscription.close();
      },
    },
  };
}
