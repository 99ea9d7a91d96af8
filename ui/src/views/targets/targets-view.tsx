import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function TargetsView(_props: RouteProps) {
  return <Page title="Targets"><p class="muted">Coming soon.</p></Page>;
}
