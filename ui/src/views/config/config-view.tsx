import type { RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';

export function ConfigView(_props: RouteProps) {
  return <Page title="Configuration"><p class="muted">Coming soon.</p></Page>;
}
