import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatTime } from '../../components/format.js';
import { Pager } from '../../components/pager.js';
import { Spinner } from '../../components/spinner.js';
import { StatusPill } from '../../components/status-pill.js';
import { useLoad } from '../../hooks/use-load.js';

export interface Action {
  readonly id: number;
  readonly type: string;
  readonly status: string;
  readonly detailStatus?: string;
  readonly active?: boolean;
  readonly forceType?: string;
  readonly createdAt?: number;
  readonly lastModifiedAt?: number;
  readonly rolloutName?: string;
  readonly lastStatusCode?: number;
  readonly _links?: { readonly distributionset?: { readonly name?: string } };
}

interface ActionStatus {
  readonly id: number;
  readonly type: string;
  readonly messages?: readonly string[];
  readonly reportedAt?: number;
  readonly code?: number;
}

const LIMIT = 50;

/** One action's full status history with its messages, newest first, paged on the server. */
function StatusHistory({ base, actionId }: { readonly base: string; readonly actionId: number }) {
  const [offset, setOffset] = useState(0);
  const history = useLoad(() => api.page<ActionStatus>(`${base}/actions/${actionId}/status`, { offset, limit: LIMIT, sort: 'id:DESC' }),
    [base, actionId, offset]);
  if (history.data === undefined) {
    return history.error === undefined ? <Spinner /> : <ErrorBanner error={history.error} onRetry={history.reload} />;
  }
  return (
    <div class="history">
      <ol class="timeline" aria-label={`Status history of action ${actionId}`}>
        {history.data.content.map((s) => (
          <li key={s.id}>
            <div><StatusPill status={s.type} /> <span class="muted">{formatTime(s.reportedAt)}{s.code === undefined ? '' : ` · code ${s.code}`}</span></div>
            {(s.messages ?? []).length > 0 && <ul class="messages">{(s.messages ?? []).map((m, i) => <li key={i}>{m}</li>)}</ul>}
          </li>
        ))}
      </ol>
      {history.data.total > LIMIT && <Pager total={history.data.total} offset={offset} limit={LIMIT} onChange={setOffset} />}
    </div>
  );
}

/** One action as a row that expands to its status history. */
export function ActionRow({ base, action }: { readonly base: string; readonly action: Action }) {
  const [open, setOpen] = useState(false);
  // a target's action list is compact (no set); the single action names its set in the link
  const full = useLoad(() => api.get<Action>(`/rest/v1/actions/${action.id}`), [action.id, action.lastModifiedAt]);
  const set = full.data?._links?.distributionset?.name?.replace(':', ' ');
  return (
    <li class="action">
      <button type="button" class="action-head" aria-expanded={open} onClick={() => { setOpen(!open); }}>
        <span class="chevron" aria-hidden="true">{open ? '▾' : '▸'}</span>
        <span class="mono">#{action.id}</span>
        <StatusPill status={action.detailStatus ?? action.status} />
        <span>{action.type === 'cancel' ? 'Cancel' : 'Update'}{set === undefined ? '' : ` to ${set}`}</span>
        <span class="muted">{action.forceType}{action.rolloutName === undefined ? '' : ` · rollout ${action.rolloutName}`}</span>
        <span class="muted grow-right">{formatTime(action.lastModifiedAt ?? action.createdAt)}</span>
      </button>
      {open && <StatusHistory base={base} actionId={action.id} />}
    </li>
  );
}
