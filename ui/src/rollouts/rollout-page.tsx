import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { ProgressBar } from '../components/progress-bar.js';
import { Spinner } from '../components/spinner.js';
import { useLoad } from '../hooks/use-load.js';
import { nameVersion, type DistributionSet } from '../model/repository.js';
import type { RouteProps } from '../router.js';
import { href } from '../router.js';
import { useSession } from '../session.js';
import { GroupList } from './group-list.js';
import type { Rollout } from './model.js';
import { RolloutOperations } from './rollout-operations.js';
import { segmentsOf } from './segments.js';
import { StatusBadge } from './status-badge.js';
import { useRolloutLive, type LiveMode } from './use-rollout-live.js';

const GROUP_LIMIT = 20;

const MODE_TEXT: Record<LiveMode, string> = {
  connecting: 'Connecting…',
  stream: 'Live',
  polling: 'Refreshing every 2 s',
};

/** One rollout (`#/rollouts/:id`): status and its operations, overall and per-group progress, live. */
export function RolloutPage({ params }: RouteProps) {
  const id = Number(params['id']);
  const [groupOffset, setGroupOffset] = useState(0);
  const [opError, setOpError] = useState<unknown>(null);
  const live = useRolloutLive(id, groupOffset, GROUP_LIMIT);
  const r = live.rollout;
  if (r === undefined) {
    return (
      <Page title="Rollout">
        <ErrorBanner error={live.error} onRetry={live.reload} />
        {live.error === null && <Spinner label="Loading the rollout" />}
      </Page>
    );
  }
  return (
    <Page title={r.name}
      subtitle={<span aria-live="polite"><StatusBadge status={r.status} /> <span class="live-mode" data-mode={live.mode}>{MODE_TEXT[live.mode]}</span></span>}
      actions={<RolloutOperations rollout={r} groups={live.groups} onDone={live.reload} onError={setOpError} />}>
      <ErrorBanner error={opError} />
      <ErrorBanner error={live.error} onRetry={live.reload} />
      <section class="card" aria-labelledby="overall">
        <h2 id="overall">Progress</h2>
        <ProgressBar segments={segmentsOf(r.totalTargetsPerStatus)} total={r.totalTargets} label="Rollout progress" legend />
        <RolloutFacts rollout={r} />
      </section>
      <section class="card" aria-labelledby="groups-title">
        <h2 id="groups-title">Groups ({live.groupTotal})</h2>
        <GroupList rolloutId={r.id} groups={live.groups} first={groupOffset + 1} />
        {live.groupTotal > GROUP_LIMIT && (
          <Pager total={live.groupTotal} offset={groupOffset} limit={GROUP_LIMIT} onChange={setGroupOffset} />
        )}
      </section>
      <p><a href={href('/rollouts')}>← All rollouts</a></p>
    </Page>
  );
}

/** The rollout's settings as a definition list. */
function RolloutFacts({ rollout: r }: { readonly rollout: Rollout }) {
  return (
    <dl class="props facts">
      <dt>Targets</dt><dd>{r.totalTargets}</dd>
      <dt>Filter</dt><dd class="mono">{r.targetFilterQuery}</dd>
      <dt>Distribution set</dt><dd><SetName id={r.distributionSetId} /></dd>
      <dt>Action type</dt><dd>{r.type}{r.type === 'timeforced' ? ` (forced from ${formatTime(r.forcetime)})` : ''}</dd>
      <dt>Start</dt><dd>{r.startAt === undefined ? 'manual' : formatTime(r.startAt)}</dd>
      {r.weight !== undefined && <><dt>Weight</dt><dd>{r.weight}</dd></>}
      <dt>Created</dt><dd>{formatTime(r.createdAt)}{r.createdBy === undefined ? '' : ` by ${r.createdBy}`}</dd>
      {r.approveDecidedBy !== undefined && (
        <><dt>Approval</dt><dd>by {r.approveDecidedBy}{r.approvalRemark === undefined ? '' : `: ${r.approvalRemark}`}</dd></>
      )}
      {r.description !== undefined && <><dt>Description</dt><dd>{r.description}</dd></>}
    </dl>
  );
}

/** The set's name and version, linked to its page; its id for an operator who may not read sets. */
function SetName({ id }: { readonly id: number }) {
  const mayRead = useSession().can(['READ_REPOSITORY', 'READ_DISTRIBUTION_SET']);
  const set = useLoad(async () => (mayRead ? api.get<DistributionSet>(`/rest/v1/distributionsets/${id}`) : undefined), [id, mayRead]);
  if (!mayRead) return <>#{id}</>;
  return <a href={href(`/repository/sets/${id}`)}>{set.data === undefined ? `#${id}` : nameVersion(set.data)}</a>;
}
