import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { DeleteButton } from '../../components/delete-button.js';
import { MetadataCard } from '../../components/metadata-card.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { Spinner } from '../../components/spinner.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { PERM } from '../../model/permissions.js';
import { nameVersion, type DistributionSet, type SoftwareModule } from '../../model/repository.js';
import { href, type RouteProps } from '../../router.js';
import { useSession } from '../../session.js';
import { SetState } from './sets-tab.js';

/** One distribution set: its properties and modules; add and remove modules while it is not locked. */
export function DistributionSetView({ params }: RouteProps) {
  const id = Number(params['id']);
  const base = `/rest/v1/distributionsets/${id}`;
  const session = useSession();
  const set = useLoad(() => api.get<DistributionSet>(base), [base]);
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const change = useSubmit();
  const s = set.data;
  if (s === undefined) {
    const body = set.error === undefined ? <Spinner /> : <ErrorBanner error={set.error} onRetry={set.reload} />;
    return <Page title="Distribution set">{body}</Page>;
  }
  const editable = session.can(PERM.updateSet) && s.locked !== true;
  const columns: Column<SoftwareModule>[] = [
    { key: 'name', label: 'Module', render: (m) => <a href={href(`/repository/modules/${m.id}`)}>{nameVersion(m)}</a> },
    { key: 'type', label: 'Type', render: (m) => m.typeName ?? m.type },
    { key: 'vendor', label: 'Vendor', render: (m) => m.vendor ?? '—', class: 'hide-phone' },
  ];
  if (editable) {
    columns.push({ key: 'remove', label: 'Remove', render: (m) => (
      <Button variant="danger" aria-label={`Remove ${nameVersion(m)}`} busy={change.busy}
        onClick={() => { void change.run(async () => { await api.send('DELETE', `${base}/assignedSM/${m.id}`); set.reload(); }); }}>Remove</Button>
    ) });
  }
  const add = (e: Event): void => {
    e.preventDefault();
    if (picked === undefined) return;
    void change.run(async () => {
      await api.send('POST', `${base}/assignedSM`, [{ id: picked }]);
      setPicked(undefined);
      set.reload();
    });
  };
  return (
    <Page title={nameVersion(s)} subtitle={<><a href={href('/repository?tab=sets')}>Distribution sets</a> / {s.typeName ?? s.type}</>}
      actions={(
        <DeleteButton what="distribution set" path={base} then="/repository?tab=sets" permission={PERM.deleteSet}>
          <p>Delete <strong>{nameVersion(s)}</strong>? A set that was assigned is only marked deleted: its actions and history stay.</p>
        </DeleteButton>
      )}>
      <div class="card">
        <dl class="props">
          <dt>State</dt><dd><SetState set={s} /></dd>
          <dt>Type</dt><dd>{s.typeName ?? s.type}</dd>
          {s.description !== undefined && s.description !== '' && <><dt>Description</dt><dd>{s.description}</dd></>}
          <dt>Required migration step</dt><dd>{s.requiredMigrationStep === true ? 'yes' : 'no'}</dd>
          <dt>Created</dt><dd>{formatTime(s.createdAt)} <span class="muted">by {s.createdBy}</span></dd>
        </dl>
      </div>
      <div class="card section">
        <h2>Software modules</h2>
        <ErrorBanner error={change.error} />
        <DataTable columns={columns} rows={s.modules ?? []} rowKey={(m) => m.id} caption="Modules of the set" empty="No modules yet." />
        {editable && session.can(PERM.readModules) && (
          <form class="add-module" onSubmit={add}>
            <EntityPicker<SoftwareModule> id="add-module" path="/rest/v1/softwaremodules" label="Add a module" value={picked}
              onChange={(mid) => { setPicked(mid); }} describe={(m) => `${nameVersion(m)} (${m.typeName ?? m.type ?? ''})`}
              search={(t) => `name==*${t}*`} />
            <div class="form-actions">
              <Button type="submit" variant="primary" busy={change.busy} disabled={picked === undefined}>Add module</Button>
            </div>
          </form>
        )}
        {s.locked === true && <p class="muted">The set is locked (it has been assigned): its modules cannot change.</p>}
      </div>
      <div class="section"><MetadataCard base={base} canEdit={session.can(PERM.updateSet)} /></div>
    </Page>
  );
}
