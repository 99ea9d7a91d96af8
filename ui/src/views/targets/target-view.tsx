import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function TargetView(_props: RouteProps) {
  return <Page title="Target"><p class="muted">Coming soon.</p></Page>;
}
