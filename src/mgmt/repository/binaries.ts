import { KeyedLock } from '../../actors/keyed-lock.js';
import type { ArtifactStorage } from '../../artifacts/index.js';
import { ARTIFACT } from '../../domain/repository.js';
import type { Store, Tenant } from '../../store/port.js';

/**
 * Stored content is shared by every artifact record with the same sha1 (identical uploads are stored
 * once), so a binary may go only when no record refers to it any more. Within one process, deciding
 * "unreferenced, remove" and "binary present, commit a record" for one sha1 take turns under a lock,
 * so a removal cannot slip between an upload finding the content stored and committing its record.
 * (Across processes sharing a data directory the window stays open; hawkBit has the same gap.)
 */
const locks = new KeyedLock();

function keyOf(tenant: Tenant, sha1: string): string {
  return `${tenant}\u0000${sha1}`;
}

/** Runs `task` while no removal of this content can run. */
export function withContent<T>(tenant: Tenant, sha1: string, task: () => Promise<T>): Promise<T> {
  return locks.run(keyOf(tenant, sha1), task);
}

/** Removes the binaries of these hashes that no artifact record refers to. */
export async function releaseBinaries(
  deps: { readonly store: Store; readonly artifacts: Pick<ArtifactStorage, 'remove'> }, tenant: Tenant, sha1s: Iterable<string>,
): Promise<void> {
  for (const sha1 of new Set(sha1s)) {
    await withContent(tenant, sha1, async () => {
      if ((await deps.store.count(tenant, ARTIFACT, 'sha1', sha1)) === 0) await deps.artifacts.remove(tenant, sha1);
    });
  }
}
