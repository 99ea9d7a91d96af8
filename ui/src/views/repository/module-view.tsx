import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { DeleteButton } from '../../components/delete-button.js';
import { MetadataCard } from '../../components/metadata-card.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatBytes, formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { Spinner } from '../../components/spinner.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { PERM } from '../../model/permissions.js';
import { nameVersion, type Artifact, type SoftwareModule } from '../../model/repository.js';
import { href, type RouteProps } from '../../router.js';
import { useSession } from '../../session.js';
import { ArtifactUpload } from './artifact-upload.js';

/** One software module: its properties, its artifacts with their hashes, and an upload. */
export function ModuleView({ params }: RouteProps) {
  const id = Number(params['id']);
  const base = `/rest/v1/softwaremodules/${id}`;
  const session = useSession();
  const module = useLoad(() => api.get<SoftwareModule>(base), [base]);
  const artifacts = useLoad(async () => (await api.get<Artifact[] | undefined>(`${base}/artifacts`)) ?? [], [base]);
  const removal = useSubmit();
  const m = module.data;
  if (m === undefined) {
    const body = module.error === undefined ? <Spinner /> : <ErrorBanner error={module.error} onRetry={module.reload} />;
    return <Page title="Software module">{body}</Page>;
  }
  const columns: Column<Artifact>[] = [
    { key: 'file', label: 'File', render: (a) => <a href={`${base}/artifacts/${a.id}/download`} download={a.providedFilename}>{a.providedFilename}</a> },
    { key: 'size', label: 'Size', render: (a) => formatBytes(a.size), class: 'num' },
    { key: 'sha256', label: 'SHA-256', render: (a) => <span class="hash" title={`MD5 ${a.hashes.md5 ?? ''}\nSHA-1 ${a.hashes.sha1 ?? ''}`}>{a.hashes.sha256}</span> },
    { key: 'at', label: 'Uploaded', render: (a) => formatTime(a.createdAt), class: 'hide-phone' },
  ];
  if (session.can(PERM.deleteModule) && m.locked !== true) {
    columns.push({ key: 'delete', label: 'Delete', render: (a) => (
      <Button variant="danger" aria-label={`Delete ${a.providedFilename}`} busy={removal.busy}
        onClick={() => { void removal.run(() => api.send('DELETE', `${base}/artifacts/${a.id}`).then(() => { artifacts.reload(); })); }}>
        Delete
      </Button>
    ) });
  }
  return (
    <Page title={nameVersion(m)} subtitle={<><a href={href('/repository?tab=modules')}>Software modules</a> / {m.typeName ?? m.type}</>}
      actions={(
        <DeleteButton what="software module" path={base} then="/repository?tab=modules" permission={PERM.deleteModule}>
          <p>
            Delete <strong>{nameVersion(m)}</strong> and its artifacts? A module of an assigned set is only marked deleted
            and stays in the sets that use it.
          </p>
        </DeleteButton>
      )}>
      <div class="card">
        <dl class="props">
          <dt>Type</dt><dd>{m.typeName ?? m.type}</dd>
          <dt>Vendor</dt><dd>{m.vendor === undefined || m.vendor === '' ? '—' : m.vendor}</dd>
          {m.description !== undefined && m.description !== '' && <><dt>Description</dt><dd>{m.description}</dd></>}
          <dt>Locked</dt><dd>{m.locked === true ? 'yes (part of an assigned set)' : 'no'}</dd>
          <dt>Created</dt><dd>{formatTime(m.createdAt)} <span class="muted">by {m.createdBy}</span></dd>
        </dl>
      </div>
      <div class="card section">
        <h2>Artifacts</h2>
        <ErrorBanner error={artifacts.error ?? removal.error} onRetry={artifacts.reload} />
        <DataTable columns={columns} rows={artifacts.data ?? []} rowKey={(a) => a.id} caption="Artifacts" empty={artifacts.loading ? 'Loading…' : 'No artifacts yet.'} />
        {session.can(PERM.createModule) && m.locked !== true && <ArtifactUpload moduleId={id} onUploaded={() => { artifacts.reload(); }} />}
      </div>
      <div class="section"><MetadataCard base={base} canEdit={session.can(PERM.updateModule)} /></div>
    </Page>
  );
}
