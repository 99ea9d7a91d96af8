import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { DeleteButton } from '../../components/delete-button.js';
import { MetadataCard } from '../../components/metadata-card.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatAgo, formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { Pager } from '../../components/pager.js';
import { Spinner } from '../../components/spinner.js';
import { StatusPill } from '../../components/status-pill.js';
import { useLoad } from '../../hooks/use-load.js';
import { nameVersion, type DistributionSet } from '../../model/repository.js';
import type { Target } from '../../model/target.js';
import { href, type RouteProps } from '../../router.js';
import { useSession } from '../../session.js';
import { ActionRow, type Action } from './action-history.js';
import { AssignDialog } from './assign-dialog.js';

const ACTIONS_LIMIT = 10;

function KeyValues({ title, entries, empty }: { title: string; entries: readonly [string, string][] | undefined; empty: string }) {
  return (
    <div class="card">
      <h2>{title}</h2>
      {entries === undefined ? <Spinner /> : entries.length === 0 ? <p class="muted">{empty}</p> : (
        <dl class="props">{entries.map(([k, v]) => [<dt key={`k-${k}`} class="mono">{k}</dt>, <dd key={`v-${k}`} class="mono">{v}</dd>])}</dl>
      )}
    </div>
  );
}

function SetLink({ set }: { set: DistributionSet | undefined }) {
  if (set === undefined) return <span class="muted">none</span>;
  return <a href={href(`/repository/sets/${set.id}`)}>{nameVersion(set)}</a>;
}

/** One target: its properties, attributes, metadata, assigned and installed sets, and its actions with their histories. */
export function TargetView({ params }: RouteProps) {
  const id = params['id'] ?? '';
  const base = `/rest/v1/targets/${encodeURIComponent(id)}`;
  const session = useSession();
  const target = useLoad(() => api.get<Target>(base), [base]);
  const attributes = useLoad(async () => Object.entries((await api.get<Record<string, string> | undefined>(`${base}/attributes`)) ?? {}), [base]);
  const sets = useLoad(async () => {
    const [assigned, installed] = await Promise.all([
      api.get<DistributionSet | undefined>(`${base}/assignedDS`), api.get<DistributionSet | undefined>(`${base}/installedDS`),
    ]);
    return { assigned, installed };
  }, [base]);
  const [offset, setOffset] = useState(0);
  const actions = useLoad(() => api.page<Action>(`${base}/actions`, { offset, limit: ACTIONS_LIMIT, sort: 'id:DESC' }),
    [base, offset]);
  const [dialog, setDialog] = useState<'assign' | undefined>(undefined);
  const t = target.data;
  if (t === undefined) {
    const body = target.error === undefined ? <Spinner /> : <ErrorBanner error={target.error} onRetry={target.reload} />;
    return <Page title={id}>{body}</Page>;
  }
  const canAssign = session.can('UPDATE_TARGET') && session.can(['READ_REPOSITORY', 'READ_DISTRIBUTION_SET']);
  return (
    <Page title={t.name ?? t.controllerId} subtitle={<><a href={href('/targets')}>Targets</a> / <span class="mono">{t.controllerId}</span></>}
      actions={<>
        {canAssign && <Button variant="primary" onClick={() => { setDialog('assign'); }}>Assign distribution set</Button>}
        <DeleteButton what="target" path={base} then="/targets" permission="DELETE_TARGET">
          <p>Delete <strong class="mono">{t.controllerId}</strong> and its actions? The device registers again when it next polls.</p>
        </DeleteButton>
      </>}>
      <div class="grid grid-2">
        <div class="card">
          <h2>Target</h2>
          <dl class="props">
            <dt>Controller ID</dt><dd class="mono">{t.controllerId}</dd>
            <dt>Update status</dt><dd><StatusPill status={t.updateStatus} /></dd>
            <dt>Last poll</dt><dd>{formatTime(t.lastControllerRequestAt)} <span class="muted">({formatAgo(t.lastControllerRequestAt)}{t.pollStatus?.overdue === true ? ', overdue' : ''})</span></dd>
            <dt>Address</dt><dd class="mono">{t.address ?? t.ipAddress ?? '—'}</dd>
            {t.targetTypeName !== undefined && <><dt>Type</dt><dd>{t.targetTypeName}</dd></>}
            {t.description !== undefined && t.description !== '' && <><dt>Description</dt><dd>{t.description}</dd></>}
            <dt>Assigned</dt><dd>{sets.data === undefined ? '…' : <SetLink set={sets.data.assigned} />}</dd>
            <dt>Installed</dt><dd>{sets.data === undefined ? '…' : <SetLink set={sets.data.installed} />} <span class="muted">{t.installedAt === undefined ? '' : formatTime(t.installedAt)}</span></dd>
            <dt>Created</dt><dd>{formatTime(t.createdAt)} <span class="muted">by {t.createdBy}</span></dd>
          </dl>
          <ErrorBanner error={sets.error} />
        </div>
        <div>
          <KeyValues title="Attributes" entries={attributes.data} empty="The device has reported no attributes." />
          <ErrorBanner error={attributes.error} />
          <MetadataCard base={base} canEdit={session.can('UPDATE_TARGET')} />
        </div>
      </div>
      <div class="card section">
        <h2>Actions</h2>
        <ErrorBanner error={actions.error} onRetry={actions.reload} />
        {actions.data === undefined ? <Spinner /> : actions.data.content.length === 0 ? <p class="muted">No actions yet.</p> : (
          <ul class="actions-list">{actions.data.content.map((a) => <ActionRow key={a.id} base={base} action={a} />)}</ul>
        )}
        {actions.data !== undefined && actions.data.total > ACTIONS_LIMIT && (
          <Pager total={actions.data.total} offset={offset} limit={ACTIONS_LIMIT} onChange={setOffset} />
        )}
      </div>
      {dialog === 'assign' && <AssignDialog open controllerIds={[t.controllerId]} onClose={() => { setDialog(undefined); }}
        onDone={() => { setDialog(undefined); target.reload(); sets.reload(); actions.reload(); }} />}
    </Page>
  );
}
