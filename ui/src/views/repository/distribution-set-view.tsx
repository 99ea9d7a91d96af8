import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function DistributionSetView(_props: RouteProps) {
  return <Page title="Distribution set"><p class="muted">Coming soon.</p></Page>;
}
