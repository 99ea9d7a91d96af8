import { useState } from 'preact/hooks';
import { ProgressBar } from '../components/progress-bar.js';
import { useSession } from '../session.js';
import { GroupTargets } from './group-targets.js';
import type { RolloutGroup } from './model.js';
import { progressText, segmentsOf } from './segments.js';
import { StatusBadge } from './status-badge.js';

interface Props {
  readonly rolloutId: number;
  readonly groups: readonly RolloutGroup[];
  /** The number of the first group shown (paging). */
  readonly first: number;
}

/** The groups: status, a stacked bar that follows the live counts, conditions, and the targets on expand. */
export function GroupList({ rolloutId, groups, first }: Props) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  // the targets list needs both READ_ROLLOUT and READ_TARGET (src/mgmt/kit/access.ts READ_ROLLOUT_TARGETS)
  const session = useSession();
  const mayList = session.can('READ_TARGET') && session.can('READ_ROLLOUT');
  const toggle = (id: number): void => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id); else next.add(id);
    setOpen(next);
  };
  return (
    <ol class="groups">
      {groups.map((g, i) => {
        const expanded = open.has(g.id);
        const counts = g.totalTargetsPerStatus;
        return (
          <li key={g.id} class="group" data-group={g.name}>
            <div class="group-head">
              <h3 class="group-name"><span class="muted">{first + i}.</span> {g.name}</h3>
              <StatusBadge status={g.status} />
              <span class="muted small">
                {g.totalTargets} targets · success ≥ {g.successCondition.expression}% → {g.successAction.action.toUpperCase() === 'PAUSE' ? 'pause' : 'next group'} ·
                error &gt; {g.errorCondition.expression}% → pause
              </span>
            </div>
            <ProgressBar segments={segmentsOf(counts)} total={g.totalTargets} label={`Progress of ${g.name}`} />
            <div class="group-foot">
              <span class="small">{progressText(counts, g.totalTargets)}</span>
              {mayList && (
                <button type="button" class="btn btn-plain" aria-expanded={expanded} aria-controls={`group-${g.id}-targets`}
                  aria-label={`${expanded ? 'Hide' : 'Show'} targets of ${g.name}`}
                  onClick={() => { toggle(g.id); }}>
                  {expanded ? 'Hide targets' : 'Show targets'}
                </button>
              )}
            </div>
            {expanded && (
              <div id={`group-${g.id}-targets`}>
                <GroupTargets rolloutId={rolloutId} groupId={g.id} version={JSON.stringify(counts ?? {})} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
