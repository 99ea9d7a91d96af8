/**
 * Hash routing: `#/rollouts/5?tab=groups` -> path `/rollouts/5`, query `tab=groups`. The route table
 * lives in routes.ts; this file knows only patterns (`/rollouts/:id`) and the location.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface RouteProps {
  /** The pattern's `:name` segments, decoded. */
  readonly params: Readonly<Record<string, string>>;
}

export interface RouteDef {
  /** `/targets/:id`: literal segments and `:name` parameters. */
  readonly pattern: string;
  readonly view: ComponentType<RouteProps>;
  /** An entry in the navigation, shown to operators holding `permission` (any of them). */
  readonly nav?: { readonly label: string; readonly order: number; readonly permission?: string | readonly string[] };
}

export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
}

function current(): Location {
  const hash = window.location.hash.replace(/^#/, '');
  const [path = '', query = ''] = hash.split('?', 2);
  return { path: path === '' ? '/' : path, query: new URLSearchParams(query) };
}

/** Goes to `#<path>` (`navigate('/targets/dev-1')`); a path may carry `?query`. */
export function navigate(path: string): void {
  const hash = `#${path}`;
  if (window.location.hash !== hash) window.location.hash = hash;
}

/** The href for a link to `path`. */
export function href(path: string): string {
  return `#${path}`;
}

/** The current location; re-renders on every hash change. */
export function useRoute(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = (): void => { setLocation(current()); };
    window.addEventListener('hashchange', update);
    return () => { window.removeEventListener('hashchange', update); };
  }, []);
  return location;
}

/** The first route whose pattern matches `path`, with its parameters. */
export function matchRoute(routes: readonly RouteDef[], path: string): { route: RouteDef; params: Record<string, string> } | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  for (const route of routes) {
    const pattern = route.pattern.split('/').filter((p) => p !== '');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((segment, i) => {
      const part = parts[i] ?? '';
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return true;
      }
      return segment === part;
    });
    if (ok) return { route, params };
  }
  return undefined;
}
