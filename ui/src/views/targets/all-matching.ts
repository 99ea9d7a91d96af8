/**
 * Bulk work on every target a search matches, not only the page shown: the ids are read page by page
 * (the server's largest page), and the writes go in chunks, each step reported so the console shows
 * progress on a fleet of thousands.
 */
import { api } from '../../api.js';
import type { Target } from '../../model/target.js';

/** Ids per read (limits.maxPageSize's default) and per write (a JSON body well under the 1 MiB limit). */
const READ_PAGE = 500;
const WRITE_CHUNK = 2000;

/** Every controller id matching `q`, in id order; `progress(done, total)` after each page. */
export async function matchingIds(q: string, progress: (done: number, total: number) => void): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += READ_PAGE) {
    const page = await api.page<Target>('/rest/v1/targets', { q: q === '' ? undefined : q, sort: 'controllerId:ASC', offset, limit: READ_PAGE });
    for (const t of page.content) ids.push(t.controllerId);
    progress(ids.length, page.total);
    if (page.content.length < READ_PAGE || ids.length >= page.total) return ids;
  }
}

/** Runs `write` for each chunk of `ids` in turn; `progress(done, total)` after each. */
export async function inChunks(
  ids: readonly string[], write: (chunk: readonly string[]) => Promise<void>, progress: (done: number, total: number) => void,
): Promise<void> {
  for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
    const chunk = ids.slice(i, i + WRITE_CHUNK);
    await write(chunk);
    progress(i + chunk.length, ids.length);
  }
}
