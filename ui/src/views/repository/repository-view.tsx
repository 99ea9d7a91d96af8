import { href, useRoute, type RouteProps } from '../../router.js';
import { Page } from '../../components/page.js';
import { ModulesTab } from './modules-tab.js';
import { SetsTab } from './sets-tab.js';
import { ModuleTypesTab, SetTypesTab } from './types-tabs.js';

const TABS = [
  ['sets', 'Distribution sets', SetsTab],
  ['modules', 'Software modules', ModulesTab],
  ['settypes', 'Set types', SetTypesTab],
  ['moduletypes', 'Module types', ModuleTypesTab],
] as const;

/** The software repository: distribution sets, software modules and their types, one tab each. */
export function RepositoryView(_props: RouteProps) {
  const route = useRoute();
  const current = TABS.find(([key]) => key === route.query.get('tab')) ?? TABS[0];
  const [, title, Tab] = current;
  return (
    <Page title="Repository">
      <nav class="tabs" aria-label="Repository">
        {TABS.map(([key, label]) => (
          <a key={key} href={href(`/repository?tab=${key}`)} aria-current={key === current[0] ? 'page' : undefined}>{label}</a>
        ))}
      </nav>
      <h2 class="sr-only">{title}</h2>
      <Tab />
    </Page>
  );
}
