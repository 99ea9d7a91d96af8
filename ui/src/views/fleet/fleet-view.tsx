import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function FleetView(_props: RouteProps) {
  return <Page title="Fleet"><p class="muted">Coming soon.</p></Page>;
}
