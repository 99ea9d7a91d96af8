/**
 * A live event stream as a reply: a snapshot on connect, then the journal's changes that pass the
 * filter. `Last-Event-ID` (or `?lastEventId=` where a client cannot set headers, as a browser's
 * WebSocket) resumes after that event without a snapshot while the journal still holds everything
 * after it; otherwise the stream starts afresh with a snapshot.
 */
import { AppError } from '../../domain/errors.js';
import type { EventHub } from '../../events/hub.js';
import type { FeedSink, Reply, Request } from '../../http/types.js';
import { compareJournalIds, parseJournalId } from '../../store/journal.js';
import type { JournalEntry, Tenant } from '../../store/port.js';
import { show } from '../../query/operands.js';
import { render, rendered, type Rendered, type StreamFilter } from './messages.js';

export interface LiveStream extends StreamFilter {
  /** What the client sees first: the current state the events then change. */
  readonly snapshot: () => Promise<unknown>;
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
        const subscription = hub.subscribe(tenant, from, subscriberOf(sink, stream));
        return () => subscription.close();
      },
    },
  };
}

/**
 * Sends each delivery's messages in order. Most are made at once; those with group progress wait for
 * its read, and whatever comes after them waits too. Counts never go back: a shared rendering read
 * before counts this subscriber has seen already (it caught up on its own reads) is made afresh.
 */
function subscriberOf(sink: FeedSink, stream: StreamFilter): { deliver(entries: readonly JournalEntry[]): void; lost(): void } {
  let queue: Promise<void> | undefined;
  let seen = 0;
  let ended = false;
  const send = (r: Rendered): void => {
    seen = Math.max(seen, r.read);
    if (r.messages !== null && !ended) sink.send(r.messages);
  };
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    sink.end(reason);
  };
  return {
    deliver(entries) {
      const made = rendered(entries, stream);
      if (queue === undefined && !(made instanceof Promise)) return send(made);
      const mine: Promise<void> = (queue ?? Promise.resolve())
        .then(() => made)
        .then((r) => (r.read !== 0 && r.read < seen ? render(entries, stream) : r))
        .then(send, () => end('reading the rollout group counts failed; reconnect for a new snapshot'))
        .finally(() => {
          if (queue === mine) queue = undefined;
        });
      queue = mine;
    },
    lost() {
      end('events were missed (the journal moved on); reconnect for a new snapshot');
    },
  };
}
