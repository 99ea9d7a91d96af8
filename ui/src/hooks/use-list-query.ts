import { navigate, useRoute } from '../router.js';

export interface ListQuery {
  readonly q: string;
  readonly sort: string;
  readonly offset: number;
  readonly limit: number;
  /** Changes some parameters in the address (a new q or sort goes back to the first page). */
  readonly set: (patch: { q?: string; sort?: string; offset?: number }) => void;
}

/**
 * A server-paged list's q, sort and offset, kept in the hash (`#/targets?q=...&sort=name:ASC&offset=50`),
 * so a list can be bookmarked and Back returns to the same page.
 */
export function useListQuery(defaults: { sort: string; limit?: number }): ListQuery {
  const route = useRoute();
  const q = route.query.get('q') ?? '';
  const sort = route.query.get('sort') ?? defaults.sort;
  const offset = Math.max(0, Number.parseInt(route.query.get('offset') ?? '0', 10) || 0);
  const limit = defaults.limit ?? 25;
  const set = (patch: { q?: string; sort?: string; offset?: number }): void => {
    const next = new URLSearchParams(route.query);
    const apply = (key: string, value: string | undefined, fallback: string): void => {
      if (value === undefined || value === fallback) next.delete(key); else next.set(key, value);
    };
    if (patch.q !== undefined) apply('q', patch.q, '');
    if (patch.sort !== undefined) apply('sort', patch.sort, defaults.sort);
    const newOffset = patch.offset ?? (patch.q !== undefined || patch.sort !== undefined ? 0 : offset);
    apply('offset', String(newOffset), '0');
    const text = next.toString();
    navigate(text === '' ? route.path : `${route.path}?${text}`);
  };
  return { q, sort, offset, limit, set };
}
