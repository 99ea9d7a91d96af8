import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function ModuleView(_props: RouteProps) {
  return <Page title="Software module"><p class="muted">Coming soon.</p></Page>;
}
