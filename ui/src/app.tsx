/**
 * The shell: the sign-in page while signed out, else the navigation and the page the hash names.
 * The navigation comes from ROUTES, filtered by the operator's permissions; on a phone it collapses
 * behind a menu button.
 */
import { useEffect, useState } from 'preact/hooks';
import { Spinner } from './components/spinner.js';
import { href, matchRoute, navigate, useRoute, type RouteDef } from './router.js';
import { ROUTES } from './routes.js';
import { signOut, useSessionState } from './session.js';
import { LoginView } from './views/login/login-view.js';

function NotFound({ path }: { readonly path: string }) {
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>There is no page at <code>{path}</code>. <a href={href('/')}>Go to the fleet overview</a>.</p>
    </section>
  );
}

/** A page whose permission the operator lacks: what they may open instead. */
function NoAccess({ pages }: { readonly pages: readonly RouteDef[] }) {
  return (
    <section class="page">
      <h1>Not for this account</h1>
      {pages.length === 0 ? (
        <p>
          Your account holds none of the permissions the console's pages need: ask an administrator for READ_TARGET,
          READ_ROLLOUT or READ_REPOSITORY.
        </p>
      ) : (
        <>
          <p>Your account may not open this page. These it may:</p>
          <ul>{pages.map((r) => <li key={r.pattern}><a href={href(r.pattern)}>{r.nav?.label}</a></li>)}</ul>
        </>
      )}
    </section>
  );
}

export function App() {
  const state = useSessionState();
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => { setMenuOpen(false); }, [route.path]);
  useEffect(() => {
    if (state.status === 'signed-out' && route.path !== '/login') {
      const here = route.query.size === 0 ? route.path : `${route.path}?${route.query.toString()}`;
      const next = route.path === '/' ? '' : `?next=${encodeURIComponent(here)}`;
      navigate(`/login${next}`);
    }
    if (state.status === 'signed-in' && route.path === '/login') {
      // back to the page that asked for the sign-in (`?next=`, a path of the console only)
      const next = route.query.get('next');
      navigate(next !== null && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/');
    }
  }, [state.status, route.path]);

  if (state.status === 'unknown') return <div class="boot"><Spinner label="Starting" /></div>;
  if (state.status === 'signed-out') return <LoginView />;

  const { session } = state;
  const nav = ROUTES.filter((r) => r.nav !== undefined && (r.nav.permission === undefined || session.can(r.nav.permission)))
    .sort((a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0));
  const match = matchRoute(ROUTES, route.path);
  const allowed = match?.route.nav?.permission === undefined || session.can(match.route.nav.permission);
  // the home page for an operator who may not see the fleet: the first page they may open
  const home = route.path === '/' && !allowed ? nav[0] : undefined;
  let page = <NotFound path={route.path} />;
  if (match !== undefined && allowed) page = <match.route.view key={route.path} params={match.params} />;
  else if (home !== undefined) page = <home.view key={home.pattern} params={{}} />;
  else if (match !== undefined) page = <NoAccess pages={nav} />;
  const active = (pattern: string): boolean => (pattern === '/' ? route.path === '/' : route.path === pattern || route.path.startsWith(`${pattern}/`));
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="topbar">
        <a class="brand" href={href('/')}><span class="brand-mark" aria-hidden="true" />peregrine</a>
        <button type="button" class="btn btn-plain menu-toggle" aria-expanded={menuOpen} aria-controls="nav"
          onClick={() => { setMenuOpen(!menuOpen); }}>Menu</button>
        <nav id="nav" class={menuOpen ? 'nav open' : 'nav'} aria-label="Main">
          <ul>
            {nav.map((r) => (
              <li key={r.pattern}>
                <a href={href(r.pattern)} aria-current={active(r.pattern) ? 'page' : undefined} onClick={() => { setMenuOpen(false); }}>{r.nav?.label}</a>
              </li>
            ))}
          </ul>
          <div class="who">
            <span title={`Tenant ${session.tenant}`}>{session.username}<span class="muted"> @ {session.tenant}</span></span>
            <button type="button" class="btn btn-plain" onClick={() => { void signOut(); }}>Sign out</button>
          </div>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}
