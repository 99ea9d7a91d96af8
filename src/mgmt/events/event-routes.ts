/**
 * Live events of a tenant (spec: the Management UI follows rollouts as they run): Server-Sent Events
 * at `GET /rest/v1/events` and `GET /rest/v1/rollouts/{id}/events`, the same as WebSocket messages at
 * `/rest/v1/ws` (`?rollout=ID` for one rollout's). Each kind of event needs what the matching GET
 * needs: rollouts and groups READ_ROLLOUT, actions and targets READ_TARGET. A rollout's stream shows
 * its groups' action changes as one `progress` event per group and delivery (messages.ts); the
 * tenant's stream with `kinds=action` shows every action change.
 */
import { JOURNAL_KINDS, type JournalEvent, type JournalKind } from '../../actors/journal.js';
import { AppError } from '../../domain/errors.js';
import { ROLLOUT, ROLLOUT_GROUP, type RolloutGroupRecord, type RolloutRecord } from '../../domain/rollout.js';
import { TARGET, UPDATE_STATUSES } from '../../domain/target.js';
import type { EventHub } from '../../events/hub.js';
import type { Request, Route } from '../../http/types.js';
import { show } from '../../query/operands.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { loadActorOr404 } from '../kit/actor-store.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf, holds, pathId } from '../kit/request.js';
import { renderGroups, renderRollouts } from '../rollouts/rollout-json.js';
import { groupProgress } from './group-progress.js';
import { liveReply } from './live-feed.js';

export type EventDeps = KitDeps & { readonly events: EventHub };

/** The permission each kind of event needs. */
const NEEDS: Readonly<Record<JournalKind, string>> = { rollout: 'READ_ROLLOUT', group: 'READ_ROLLOUT', action: 'READ_TARGET', target: 'READ_TARGET' };

/** Rollouts in these states show in the tenant snapshot. */
const ACTIVE = new Set(['creating', 'ready', 'waiting_for_approval', 'approval_denied', 'starting', 'running', 'paused', 'stopping', 'deleting']);

const STREAM_DOC = {
  tags: ['Events'],
  description: 'A snapshot event first, then one event per change (`event:` rollout, group, action or target; `data:` JSON). '
    + "A rollout's stream shows its groups' action changes as `progress` events instead: one per group and delivery (the "
    + 'server reads the journal every 0.2-1 s), with the number of changes and the group\'s `totalTargets` and `totalTargetsPerStatus`; '
    + '`/rest/v1/events?kinds=action` has one event per action change. '
    + 'Last-Event-ID resumes after an event while the server still holds what came after it.',
  response: { status: 200, contentType: 'text/event-stream' },
} as const;
const LAST_EVENT_ID = { name: 'lastEventId', description: 'As the Last-Event-ID header (for clients that cannot set headers)' } as const;

export function eventRoutes(deps: EventDeps): Route[] {
  const signedIn = deps.mgmtAuth();
  const readRollout = deps.mgmtAuth(ACCESS.rollout.read);

  const rolloutStream = async (req: Request, tenant: Tenant, id: number) => {
    await loadActorOr404(deps.store, tenant, ROLLOUT, id);
    return liveReply(deps.events, tenant, req, {
      key: `rollout:${id}`,
      accepts: (e) => e.type !== 'target' && e.rolloutId === id,
      progress: (groups) => groupProgress(deps.store, tenant, id, groups),
      snapshot: async () => {
        const rollout = (await deps.store.get<RolloutRecord>(tenant, ROLLOUT, id))?.value;
        if (rollout === undefined) return { rollout: null, groups: [] };
        const ids = await deps.store.members(tenant, ROLLOUT_GROUP, 'rollout', String(id), SCAN_ALL);
        const groups = (await loadRecords<RolloutGroupRecord>(deps.store, tenant, ROLLOUT_GROUP, ids.ids)).map((g) => g.value);
        const flow = (await deps.tenantConfig.view(tenant)).bool('user.confirmation.flow.enabled');
        return {
          rollout: (await renderRollouts(deps.store, tenant, req, [rollout], true))[0],
          groups: await renderGroups(deps.store, tenant, req, rollout, groups, true, flow),
        };
      },
    });
  };

  const tenantStream = async (req: Request) => {
    const { tenant } = callerOf(req);
    const kinds = kindsOf(req);
    return liveReply(deps.events, tenant, req, {
      key: `kinds:${[...kinds].sort().join(',')}`,
      accepts: (e: JournalEvent) => kinds.has(e.type),
      snapshot: () => tenantSnapshot(deps, tenant, kinds),
    });
  };

  return [
    {
      method: 'GET', path: '/rest/v1/events', auth: signedIn, produces: 'other', etag: false, handler: tenantStream,
      doc: {
        ...STREAM_DOC, summary: "The tenant's live events (Server-Sent Events)",
        query: [{ name: 'kinds', description: `Comma-separated, any of ${JOURNAL_KINDS.join(', ')}; default: every kind the caller may read` }, LAST_EVENT_ID],
      },
    },
    {
      method: 'GET', path: '/rest/v1/rollouts/:rolloutId/events', auth: readRollout, produces: 'other', etag: false,
      handler: (req) => rolloutStream(req, callerOf(req).tenant, pathId(req, 'rolloutId', 'Rollout')),
      doc: { ...STREAM_DOC, summary: "A rollout's live events (Server-Sent Events)", query: [LAST_EVENT_ID] },
    },
    {
      method: 'GET', path: '/rest/v1/ws', auth: signedIn, produces: 'other', etag: false, websocket: true,
      doc: {
        tags: ['Events'], summary: 'The live events as WebSocket messages [{id, event, data}, ...]',
        description: 'A WebSocket upgrade (a plain GET answers 400). Without `rollout`, the tenant stream (`kinds` as for /rest/v1/events). '
          + 'A refused request is upgraded and then closed with 4000 + the HTTP status (4401, 4403, 4404, 4400) and the error message as the reason.',
        query: [{ name: 'rollout', type: 'integer', description: "One rollout's events" }, { name: 'kinds' }, LAST_EVENT_ID],
        response: { status: 101 },
      },
      handler: (req) => {
        // a page of another site may open a WebSocket with the browser's cookie: only this origin's pages may
        const origin = req.headers['origin'];
        if (origin !== undefined && origin !== req.baseUrl) {
          throw new AppError('INSUFFICIENT_PERMISSION', `a WebSocket from origin ${show(origin)} is refused: only pages of ${req.baseUrl} may open one`);
        }
        const rollout = req.query.get('rollout');
        if (rollout === null || rollout === '') return tenantStream(req);
        if (!holds(req, NEEDS.rollout)) throw new AppError('INSUFFICIENT_PERMISSION', `User ${callerOf(req).username} lacks the permission READ_ROLLOUT`);
        if (!/^[0-9]{1,15}$/.test(rollout)) throw new AppError('BAD_PARAMETER', `rollout must be a rollout id, got '${show(rollout)}'`);
        return rolloutStream(req, callerOf(req).tenant, Number(rollout));
      },
    },
  ];
}

/**
 * `?kinds=rollout,action` (any of rollout, group, action, target; default: every kind the caller may
 * read). A kind the caller may not read: 403; no kind at all: 403.
 */
function kindsOf(req: Request): ReadonlySet<JournalKind> {
  const raw = req.query.get('kinds');
  const asked = raw === null || raw.trim() === '' ? undefined : raw.split(',').map((k) => k.trim().toLowerCase()).filter((k) => k !== '');
  if (asked !== undefined) {
    const unknown = asked.find((k) => !(JOURNAL_KINDS as readonly string[]).includes(k));
    if (unknown !== undefined) throw new AppError('BAD_PARAMETER', `kinds must name some of ${JOURNAL_KINDS.join(', ')}, got '${show(unknown)}'`);
    const denied = asked.find((k) => !holds(req, NEEDS[k as JournalKind]));
    if (denied !== undefined) {
      throw new AppError('INSUFFICIENT_PERMISSION', `User ${callerOf(req).username} lacks the permission ${NEEDS[denied as JournalKind]} for ${denied} events`);
    }
    return new Set(asked as JournalKind[]);
  }
  const allowed = JOURNAL_KINDS.filter((k) => holds(req, NEEDS[k]));
  if (allowed.length === 0) throw new AppError('INSUFFICIENT_PERMISSION', `User ${callerOf(req).username} may read no kind of event (READ_TARGET or READ_ROLLOUT)`);
  return new Set(allowed);
}

/** Target counts by update status and the rollouts under way, as far as the stream's kinds go. */
async function tenantSnapshot(deps: EventDeps, tenant: Tenant, kinds: ReadonlySet<JournalKind>): Promise<object> {
  const out: Record<string, unknown> = {};
  if (kinds.has('target') || kinds.has('action')) {
    const counts = await Promise.all(UPDATE_STATUSES.map((s) => deps.store.count(tenant, TARGET, 'updateStatus', s)));
    out['targets'] = { total: await deps.store.count(tenant, TARGET), byUpdateStatus: Object.fromEntries(UPDATE_STATUSES.map((s, i) => [s, counts[i]])) };
  }
  if (kinds.has('rollout') || kinds.has('group')) {
    const ids = await deps.store.ids(tenant, ROLLOUT, SCAN_ALL);
    const rollouts = await loadRecords<RolloutRecord>(deps.store, tenant, ROLLOUT, ids.ids);
    out['rollouts'] = rollouts.filter((r) => ACTIVE.has(r.value.status)).map((r) => ({ id: r.value.id, name: r.value.name, status: r.value.status }));
  }
  return out;
}
