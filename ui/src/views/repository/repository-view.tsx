import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function RepositoryView(_props: RouteProps) {
  return <Page title="Repository"><p class="muted">Coming soon.</p></Page>;
}
