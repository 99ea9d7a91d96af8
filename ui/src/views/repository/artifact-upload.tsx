import { useState } from 'preact/hooks';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatBytes } from '../../components/format.js';
import { ProgressBar } from '../../components/progress-bar.js';
import type { Artifact } from '../../model/repository.js';
import { upload } from '../../upload.js';

interface Props {
  readonly moduleId: number;
  /** After each stored file, with the artifact the server answered (its hashes). */
  readonly onUploaded: (artifact: Artifact) => void;
}

interface Progress {
  readonly name: string;
  readonly sent: number;
  readonly total: number;
}

/** Picks files and uploads them one after another, with a progress bar; shows the hashes the server computed. */
export function ArtifactUpload({ moduleId, onUploaded }: Props) {
  const [progress, setProgress] = useState<Progress | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [last, setLast] = useState<Artifact | undefined>(undefined);
  const send = async (files: readonly File[]): Promise<void> => {
    setError(undefined);
    for (const file of files) {
      setProgress({ name: file.name, sent: 0, total: file.size });
      try {
        const artifact = await upload<Artifact>(`/rest/v1/softwaremodules/${moduleId}/artifacts`, file, (sent, total) => {
          setProgress({ name: file.name, sent, total });
        });
        setLast(artifact);
        onUploaded(artifact);
      } catch (err) {
        setError(err);
        break;
      }
    }
    setProgress(undefined);
  };
  return (
    <div class="upload">
      <label for="artifact-file">Upload artifacts</label>
      <input id="artifact-file" type="file" multiple disabled={progress !== undefined}
        onChange={(e) => {
          const input = e.currentTarget;
          const files = [...(input.files ?? [])];
          input.value = '';
          if (files.length > 0) void send(files);
        }} />
      {progress !== undefined && (
        <div class="upload-progress" aria-live="polite">
          <div>{progress.name}: {formatBytes(progress.sent)} of {formatBytes(progress.total)}</div>
          <ProgressBar label={`Uploading ${progress.name}`} total={progress.total}
            segments={[{ value: progress.sent, label: 'sent', kind: 'running' }]} />
        </div>
      )}
      <ErrorBanner error={error} />
      {last !== undefined && progress === undefined && (
        <div class="banner banner-info" role="status">
          <div>
            Stored <strong>{last.providedFilename}</strong> ({formatBytes(last.size)}). Hashes computed by the server:
            <dl class="props hashes">
              <dt>MD5</dt><dd class="hash" data-hash="md5">{last.hashes.md5}</dd>
              <dt>SHA-1</dt><dd class="hash" data-hash="sha1">{last.hashes.sha1}</dd>
              <dt>SHA-256</dt><dd class="hash" data-hash="sha256">{last.hashes.sha256}</dd>
            </dl>
          </div>
        </div>
      )}
    </div>
  );
}
